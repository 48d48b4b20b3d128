import os.path
from .m import f as g, h
class A(Base):
    x = 1
    def m(self, y, *args, z=2):
        self.q = y
        return self.m(y) + g(x=1)
def f(a):
    lambda b: b
    [i for i in a]
    for k, v in a: pass
    global gg
    with open(a) as fh: pass
