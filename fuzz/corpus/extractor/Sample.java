package com.x;
import java.util.List;
import com.y.Util;
public class A extends B implements I {
  private int f = 1;
  public A(int a) { this.f = a; }
  void m(int p) { int q = p; this.m(q); Util.go(q); f++; other.call(); }
  interface J { void k(); }
  enum E { X, Y }
}
