#include "support/Module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>

#include "support/Log.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0.0.0"
#endif

namespace nib {
namespace {

// Bump when an entry point's signature, or a type passed through one, changes shape.
constexpr int kModuleAbiRevision = 2;

struct Loaded {
  void* handle = nullptr;
  Status status;
};

std::mutex gMutex;
std::map<std::string, Loaded>& loadedModules() {
  static std::map<std::string, Loaded> modules;  // only modules that loaded
  return modules;
}

std::string executableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string self(buf, static_cast<size_t>(n));
  size_t slash = self.rfind('/');
  return slash == std::string::npos ? "." : self.substr(0, slash);
}

std::string envName(const std::string& name) {
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return "NIB_" + upper + "_MODULE";
}

Loaded load(const std::string& name) {
  const std::string var = envName(name);
  std::string file;
  if (const char* env = std::getenv(var.c_str()); env && *env) file = env;
  else file = executableDir() + "/libnib-" + name + ".so";
  Loaded out;
  // RTLD_LOCAL: the module's own copies of nib's code and its libraries never interpose on
  // the executable's symbols.
  out.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!out.handle) {
    const char* why = dlerror();
    out.status = Status(ErrorCode::Unavailable, "cannot load the " + name + " module " + file + ": " +
                                                    (why ? why : "unknown error") +
                                                    " (reinstall nib, or set " + var + " to the module's path)");
    return out;
  }
  using InitFn = const char*(int);
  auto* init = reinterpret_cast<InitFn*>(dlsym(out.handle, "nib_module_init"));
  const char* abi = init ? init(static_cast<int>(logLevel())) : nullptr;
  if (!abi || moduleAbi() != abi) {
    out.status = Status(ErrorCode::Unsupported, "the " + name + " module " + file + " comes from another build (" +
                                                    (abi ? abi : "no nib_module_init") + ", this nib is " +
                                                    moduleAbi() + "); reinstall nib");
    out.handle = nullptr;  // left mapped: unloading code that may have run is not safe
  }
  return out;
}

}  // namespace

std::string moduleAbi() { return std::string("nib ") + NIB_VERSION + " module-abi " + std::to_string(kModuleAbiRevision); }

Expected<void*> moduleSymbol(const std::string& name, const char* symbol) {
  void* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(gMutex);
    auto& modules = loadedModules();
    auto it = modules.find(name);
    if (it == modules.end()) {
      // A failure is not remembered: a module installed while a server runs is found by the
      // next request (dlopen of a missing file costs microseconds).
      Loaded loaded = load(name);
      if (!loaded.handle) return loaded.status;
      it = modules.emplace(name, loaded).first;
    }
    handle = it->second.handle;
  }
  void* p = dlsym(handle, symbol);
  if (!p)
    return Status(ErrorCode::Unsupported, "the " + name + " module has no entry point " + symbol + "; reinstall nib");
  return p;
}

}  // namespace nib
