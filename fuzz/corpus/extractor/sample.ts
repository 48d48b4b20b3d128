import { a, b as c } from './m';
import * as ns from "../n";
import def from './d';
const r = require('./x');
export class K extends Base implements I {
  private f: number = 1;
  m(p: string): void { this.f = 2; this.m(p); ns.q(); }
}
export function fn(x: number) { let y = x; const z = (w) => w; return y; }
interface I { k(): void; }
type T = { a: number };
enum En { A }
