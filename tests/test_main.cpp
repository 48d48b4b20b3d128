// Catch2's main, alone in its translation unit: it compiles slowly and never changes.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
