package main
import (
  "fmt"
  u "example.com/m/util"
)
type S struct { F int }
type I interface { M() }
func (s *S) M() { s.F = 1; fmt.Println(u.X) }
func f(a int) int { b := a; var c = b; return c }
const K = 1
var V = 2
