#include "b.h"
#define MAX(a) a
namespace ns {
class A : public B {
 public:
  int x;
  void m(int y);
  A() {}
};
void A::m(int y) { this->x = y; x++; ns::f(y); obj.run(); p->go(); }
template <typename T> T id(T v) { return v; }
enum E { E1, E2 };
using U = int;
typedef int V;
}
int g(int a) { int b = a; return MAX(b); }
