// SPDX-License-Identifier: Apache-2.0
#pragma once

// meta/v1 Table: the server-side printing kubectl get uses (`Accept: ...;as=Table`). Columns
// and cells as the server computes them, for any kind, including custom resources with
// additionalPrinterColumns.

#include <kubex/core/custom_resource.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/raw_json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kubex {

/// One column of a Table.
struct TableColumn {
  /// Header, e.g. "Name", "Ready", "Age".
  std::string name{};
  /// OpenAPI type of the cells: "string", "integer", "number", "boolean", "date".
  std::string type{};
  /// OpenAPI format, e.g. "name" for the name column.
  std::string format{};
  /// What the column shows.
  std::string description{};
  /// 0 for columns kubectl shows by default; higher ones appear with `-o wide`.
  std::int32_t priority = 0;
};

/// One row of a Table.
struct TableRow {
  /// The cells, one per column, as JSON values (strings, numbers, booleans, null).
  std::vector<RawJson> cells{};
  /// The object (as PartialObjectMetadata unless includeObject says otherwise).
  RawJson object{};
};

/// A meta/v1 Table.
struct Table {
  /// "meta.k8s.io/v1".
  std::string api_version{};
  /// "Table".
  std::string kind{};
  /// Paging and resource version.
  ListMetadata metadata{};
  /// The columns.
  std::vector<TableColumn> column_definitions{};
  /// The rows.
  std::vector<TableRow> rows{};
};

/// JSON fields of TableColumn.
constexpr auto kubex_fields(const TableColumn*) noexcept {
  return std::tuple{json::field("name", &TableColumn::name),
                    json::field("type", &TableColumn::type),
                    json::field("format", &TableColumn::format),
                    json::field("description", &TableColumn::description),
                    json::field("priority", &TableColumn::priority)};
}
/// JSON fields of TableRow.
constexpr auto kubex_fields(const TableRow*) noexcept {
  return std::tuple{json::field("cells", &TableRow::cells),
                    json::field("object", &TableRow::object)};
}
/// JSON fields of Table.
constexpr auto kubex_fields(const Table*) noexcept {
  return std::tuple{json::field("apiVersion", &Table::api_version),
                    json::field("kind", &Table::kind), json::field("metadata", &Table::metadata),
                    json::field("columnDefinitions", &Table::column_definitions),
                    json::field("rows", &Table::rows)};
}

}  // namespace kubex
