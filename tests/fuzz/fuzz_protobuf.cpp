// SPDX-License-Identifier: Apache-2.0
// Fuzz target for kubex::protobuf: the wire reader, the writer, the envelope and the watch
// framing. For any input:
//   - read as a message (and again after the magic, if it starts with it), length-delimited
//     fields read as messages where they parse whole and kept as bytes where not, it either
//     throws protobuf::DecodeError (errc::invalid_protobuf) or gives a tree that, written
//     again with the Writer, reads back as the same tree and is no longer than the input;
//   - as a body, open_envelope either throws DecodeError or opens to fields that survive
//     seal_envelope and open_envelope again;
//   - cut into watch frames whole and in 7-byte pieces, the same frames come out, or the
//     same error; each frame is read as a watch event;
//   - read into the generated models (a PodList, a Deployment, a CRD, metadata only), as is
//     and as an envelope's object, it either throws DecodeError or gives an object whose JSON
//     encoding decodes again (so nothing protobuf can say yields invalid JSON on write-back),
//     and which the generated writer writes back as protobuf that reads as the same object
//     (compared as the bytes it writes again: a NaN read from a double is not equal to itself);
//   - as a list body (a PodList, metadata only), fed to protobuf::ListDecoder in 7-byte pieces
//     and at once, it decodes as decode_object decodes it whole, or both refuse it; the
//     decoder may refuse more only where its documentation says (an envelope with two list
//     messages, a kind named before the items).
// Any other exception, crash, leak or sanitizer report is a finding. Built with libFuzzer by
// the `fuzz` preset (scripts/fuzz.sh --target protobuf), and with any compiler as
// kubex_fuzz_protobuf_replay, which runs tests/fuzz/protobuf-corpus as a unit test.
#include <kubex/core/arena.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_list.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/protobuf_read.hpp>
#include <kubex/core/protobuf_write.hpp>
#include <kubex/k8s/v1_35/apiextensions/v1.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace kubex_fuzz {

namespace pb = kubex::protobuf;

[[noreturn]] void finding(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz_protobuf: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// Runs `f`; true if it returned, false if it threw a well-formed DecodeError.
template <class F>
bool decodes(F&& f) {
  try {
    f();
    return true;
  } catch (const pb::DecodeError& e) {
    if (e.code() != kubex::errc::invalid_protobuf ||
        std::string_view(e.what()).substr(0, 18) != "invalid protobuf: ") {
      finding("malformed DecodeError", e.what());
    }
    return false;
  } catch (const std::exception& e) {
    finding("unexpected exception", e.what());
  }
}

struct Field {
  std::uint32_t number = 0;
  pb::WireType type = pb::WireType::varint;
  std::uint64_t number_value = 0;             // varint, fixed64, fixed32
  std::string bytes;                          // bytes that are not a message
  std::optional<std::vector<Field>> message;  // bytes that parse whole as a message
  bool operator==(const Field&) const = default;
};

std::vector<Field> read_tree(pb::Reader r);

// A length-delimited value as a message if it parses whole (and is not empty), else bytes.
// Read through Reader::message(), so that the depth limit holds here too: a value nested
// deeper than the limit stays bytes.
void read_bytes(pb::Reader& r, Field& f) {
  std::optional<pb::Reader> nested;
  if (!decodes([&] { nested.emplace(r.message()); })) {
    f.bytes = r.bytes();
    return;
  }
  const std::string_view value = nested->data();
  std::vector<Field> inner;
  if (!value.empty() && decodes([&] { inner = read_tree(*nested); })) {
    f.message = std::move(inner);
  } else {
    f.bytes = value;
  }
}

std::vector<Field> read_tree(pb::Reader r) {
  std::vector<Field> fields;
  while (r.next()) {
    Field f;
    f.number = r.field();
    f.type = r.wire_type();
    switch (f.type) {
      case pb::WireType::varint:
        f.number_value = r.uint64();
        break;
      case pb::WireType::fixed64:
        f.number_value = r.fixed64();
        break;
      case pb::WireType::fixed32:
        f.number_value = r.fixed32();
        break;
      case pb::WireType::bytes:
        read_bytes(r, f);
        break;
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

void write_tree(pb::Writer& w, const std::vector<Field>& fields) {
  for (const Field& f : fields) {
    switch (f.type) {
      case pb::WireType::varint:
        w.uint64(f.number, f.number_value);
        break;
      case pb::WireType::fixed64:
        w.fixed64(f.number, f.number_value);
        break;
      case pb::WireType::fixed32:
        w.fixed32(f.number, static_cast<std::uint32_t>(f.number_value));
        break;
      case pb::WireType::bytes:
        if (f.message) {
          w.message(f.number, [&](pb::Writer& inner) { write_tree(inner, *f.message); });
        } else {
          w.bytes(f.number, f.bytes);
        }
        break;
    }
  }
}

void check_tree(std::string_view input) {
  std::vector<Field> tree;
  if (!decodes([&] { tree = read_tree(pb::Reader(input)); })) {
    return;
  }
  std::string again;
  pb::Writer w(again);
  write_tree(w, tree);
  if (again.size() > input.size()) {
    finding("the canonical encoding is longer than the input");
  }
  std::vector<Field> reread;
  if (!decodes([&] { reread = read_tree(pb::Reader(again)); }) || reread != tree) {
    finding("a written tree does not read back the same");
  }
}

void check_envelope(std::string_view input) {
  pb::Envelope e;
  if (!decodes([&] { e = pb::open_envelope(input); })) {
    return;
  }
  const std::string sealed = pb::seal_envelope(e.api_version, e.kind, e.raw);
  pb::Envelope again;
  if (!decodes([&] { again = pb::open_envelope(sealed); }) || again.kind != e.kind ||
      again.api_version != e.api_version || again.raw != e.raw || !again.content_encoding.empty() ||
      !again.content_type.empty()) {
    finding("a sealed envelope does not open to what was sealed");
  }
}

// Frames (as strings) and whether the splitter refused the stream: as malformed (DecodeError)
// or as a frame over its limit (std::errc::message_size, Failure::too_large()).
std::pair<std::vector<std::string>, bool> split(std::string_view input, std::size_t piece) {
  pb::FrameSplitter splitter(4096);
  std::vector<std::string> frames;
  bool too_large = false;
  const bool ok = decodes([&] {
    try {
      for (std::size_t at = 0; at < input.size(); at += piece) {
        splitter.append(input.substr(at, piece));
        while (const auto frame = splitter.next()) {
          frames.emplace_back(*frame);
        }
      }
    } catch (const pb::DecodeError&) {
      throw;
    } catch (const kubex::Error& e) {
      if (e.code() != std::errc::message_size ||
          std::string_view(e.what()).find("exceeds the limit of 4096 bytes") ==
              std::string_view::npos) {
        finding("malformed too-large error", e.what());
      }
      too_large = true;
    }
  });
  return {frames, ok && !too_large};
}

void check_frames(std::string_view input) {
  const auto whole = split(input, input.empty() ? 1 : input.size());
  const auto pieces = split(input, 7);
  if (whole != pieces) {
    finding("frames depend on how the stream was cut");
  }
  for (const auto& frame : whole.first) {
    (void)decodes([&] {
      const pb::WatchEventFrame event = pb::read_watch_event(frame);
      (void)event;
    });
  }
}

// One model: decoded, then its JSON must decode again.
template <class T>
void check_model(std::string_view message) {
  T object;
  if (!decodes([&] {
        kubex::Arena arena;  // as protobuf::decode_object reads: the memory in an arena
        const kubex::ArenaScope scope(&arena);
        pb::Reader r(message);
        kubex_read_proto(r, object);
      })) {
    return;
  }
  const std::string json = kubex::json::encode(object);
  T on_heap;  // the same read outside any arena, as a hand-built object holds its memory
  pb::Reader heap_reader(message);
  kubex_read_proto(heap_reader, on_heap);
  if (kubex::json::encode(on_heap) != json) {
    finding("a model read in an arena differs from the same read on the heap", json);
  }
  try {
    (void)kubex::json::decode<T>(json);
  } catch (const std::exception& e) {
    finding("a model read from protobuf encodes to JSON that does not decode", e.what());
  }
  std::string written;
  try {
    pb::Writer w(written);
    kubex_write_proto(w, object);
    T again;
    pb::Reader r(written);
    kubex_read_proto(r, again);
    std::string rewritten;
    pb::Writer w2(rewritten);
    kubex_write_proto(w2, again);
    if (rewritten != written) {
      finding("a model read from protobuf, written back, reads as another object");
    }
  } catch (const std::exception& e) {
    finding("a model read from protobuf does not write back", e.what());
  }
}

void check_models(std::string_view message) {
  namespace v1_35 = kubex::k8s::v1_35;
  check_model<v1_35::core::v1::PodList>(message);
  check_model<v1_35::apps::v1::Deployment>(message);
  check_model<v1_35::apiextensions::v1::CustomResourceDefinition>(message);
  check_model<v1_35::meta::v1::PartialObjectMetadataList>(message);
}

// A list body decoded whole (piece 0) or fed in pieces of `piece` bytes: its JSON, or
// std::nullopt with the error in `why`.
template <class L>
std::optional<std::string> decode_list(std::string_view input, std::size_t piece,
                                       std::string& why) {
  try {
    L list;
    if (piece == 0) {
      pb::decode_object(input, list);
    } else {
      pb::ListDecoder<L> decoder(0);
      std::string body;
      for (std::size_t at = 0; at < input.size(); at += piece) {
        body.append(input.substr(at, piece));
        decoder.feed(body);
      }
      list = decoder.finish(body);
    }
    return kubex::json::encode(list);
  } catch (const pb::DecodeError& e) {
    (void)decodes([&] { throw e; });  // checks that it is well-formed
    why = e.what();
  } catch (const kubex::json::DecodeError& e) {
    why = e.what();  // a body of another kind
  } catch (const std::exception& e) {
    finding("unexpected exception", e.what());
  }
  return std::nullopt;
}

// Whether the envelope holds field 2, the object's message, more than once: decode_object
// reads the last, the list decoder the first, and refuses the body, but only once it has read
// the first (whose own errors come first then).
bool two_list_messages(std::string_view input) {
  if (input.substr(0, pb::magic.size()) != pb::magic) {
    return false;
  }
  int seen = 0;
  try {
    pb::Reader envelope(input.substr(pb::magic.size()));
    while (envelope.next()) {
      seen += envelope.field() == 2 ? 1 : 0;
    }
  } catch (const pb::DecodeError&) {
  }
  return seen > 1;
}

template <class L>
void check_list(std::string_view input) {
  std::string why;
  const auto whole = decode_list<L>(input, 0, why);
  const bool two_lists = two_list_messages(input);
  for (const std::size_t piece : {std::size_t{7}, input.size() + 1}) {
    std::string streamed_why;
    const auto streamed = decode_list<L>(input, piece, streamed_why);
    if (streamed && !whole) {
      finding("a list fed in pieces decodes where the whole body does not", why);
    }
    if (whole && !streamed && !two_lists &&
        streamed_why.find("the response is ") == std::string::npos) {
      finding("a list fed in pieces fails where the whole body decodes", streamed_why);
    }
    if (whole && streamed && *whole != *streamed) {
      finding("a list fed in pieces decodes to another list", *whole);
    }
  }
}

}  // namespace kubex_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  kubex_fuzz::check_tree(input);
  if (input.substr(0, kubex::protobuf::magic.size()) == kubex::protobuf::magic) {
    kubex_fuzz::check_tree(input.substr(kubex::protobuf::magic.size()));  // the envelope
  }
  kubex_fuzz::check_envelope(input);
  kubex_fuzz::check_frames(input);
  kubex_fuzz::check_models(input);
  kubex_fuzz::check_list<kubex::k8s::v1_35::core::v1::PodList>(input);
  kubex_fuzz::check_list<kubex::k8s::v1_35::meta::v1::PartialObjectMetadataList>(input);
  try {
    kubex_fuzz::check_models(kubex::protobuf::open_envelope(input).raw);
  } catch (const kubex::protobuf::DecodeError&) {
  }
  return 0;
}
