// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/protobuf_metadata.hpp>

namespace kubex {

void kubex_read_proto(protobuf::Reader& r, ListMetadata& o) {
  o = ListMetadata{};
  while (r.next()) {
    switch (r.field()) {
      case 1:
        protobuf::read_omit_zero(r, o.self_link);
        break;
      case 2:
        protobuf::read_omit_zero(r, o.resource_version);
        break;
      case 3:
        protobuf::read_omit_zero(r, o.continue_);
        break;
      case 4:
        protobuf::read(r, o.remaining_item_count);
        break;
      default:
        r.skip();
        break;
    }
  }
}

}  // namespace kubex
