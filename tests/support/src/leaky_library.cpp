// SPDX-License-Identifier: Apache-2.0
// A shared library that check_shared_exports.sh must refuse (check_shared_exports_catches): it is
// built with default visibility and a wrong soname, and exports a function outside namespace
// kubex, as a kubex library would that lost its hidden visibility.
namespace kubex {
int fixture_answer() {
  return 42;
}
}  // namespace kubex

namespace third_party {
int leaked_function() {
  return 7;
}
}  // namespace third_party
