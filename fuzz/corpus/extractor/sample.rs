use crate::a::b::{f, g as h};
use std::io;
mod m;
struct S { x: i32 }
enum E { A, B }
trait T { fn t(&self); }
impl T for S { fn t(&self) { self.x; let y = 1; helper(y); Self::new(); } }
fn helper(a: i32) -> i32 { let (p, q) = (a, a); p }
const C: i32 = 1;
macro_rules! mm { () => {} }
