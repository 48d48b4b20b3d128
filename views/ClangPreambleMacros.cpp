#include "views/ClangPreambleMacros.h"

#include <algorithm>
#include <map>
#include <vector>

#include "support/PreprocessorText.h"
#include "views/FileFacts.h"

namespace nib {

void answerPreambleMacrosAsClangd(TuFacts& facts, uint32_t main, std::string_view mainText) {
  const size_t end = preambleEnd(mainText);
  // The main file's macro occurrences in the preamble, by name, in offset order.
  std::map<std::string_view, std::vector<ClangOccurrence*>> byName;
  for (ClangOccurrence& o : facts.occurrences)
    if (o.file == main && o.offset < end && static_cast<SymbolKind>(o.kind) == SymbolKind::Macro && !o.expanded &&
        o.usr < facts.names.size())
      byName[facts.names[o.usr]].push_back(&o);
  for (auto& [name, occurrences] : byName) {
    std::sort(occurrences.begin(), occurrences.end(), [](const ClangOccurrence* a, const ClangOccurrence* b) { return a->offset < b->offset; });
    const ClangOccurrence* last = nullptr;  // the definition in effect at the preamble's end
    size_t definitions = 0, undefs = 0;
    bool undefined = false;
    for (const ClangOccurrence* o : occurrences) {
      if (o->role == ClangRole::Definition) {
        last = o, ++definitions, undefined = false;
      } else if (o->role == ClangRole::Reference && directiveAt(mainText, o->offset) == "undef") {
        ++undefs, undefined = true;
      }
    }
    // One definition the preamble never #undefs answers there as anywhere.
    if (!last || undefined || (definitions < 2 && undefs == 0)) continue;
    const uint32_t usr = last->usr;
    for (ClangOccurrence* o : occurrences) {
      if (o == last) continue;
      o->usr = usr;
      o->role = ClangRole::Reference;
      o->unlisted = true;
    }
  }
}

}  // namespace nib
