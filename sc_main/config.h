// The configuration: the values of the declared keys (common/params.h: each config
// struct declares its own, with a default, a range or a set of choices and a help line),
// layered as built-in defaults < preset < config file < --set. Every error names where
// the bad value came from (file and line, or --set) and the key.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/params.h"
#include "sc_main/json.h"

namespace ssd {

struct ConfigError : std::runtime_error {
  explicit ConfigError(const std::string& what) : std::runtime_error(json::without_nul(what)) {}
};

// A config file may hold a section of this name: notes, not keys (a preset file's
// description and, per key, where its value comes from).
inline constexpr const char* kNotesSection = "preset";

class Config {
 public:
  using Type = param::Type;
  // A declared key (param::Key) with its value (param::Value: i, d, b or s by type) and
  // where the value came from.
  struct Key : param::Key, param::Value {
    std::string origin = "default";
  };

  // Every key of a declaration table (common/params.h), with its default.
  template <class S>
  void declare(const param::Table<S>& table) {
    for (const param::Field<S>& f : table.fields()) add(f.key, f.def);
  }
  void add(const param::Key& key, const param::Value& def);
  // A family of keys repeated per item: PREFIX.<i>.NAME for i < max_items and each NAME of
  // `keys` (their names without the prefix). An item's key exists once it is set (by
  // --set, a file, or a JSON array at PREFIX whose i-th object holds it), with the
  // template's default until then; --list-keys shows the family once, as PREFIX.<i>.NAME.
  void declare_family(const std::string& prefix, unsigned max_items, std::vector<param::Key> keys,
                      std::vector<param::Value> defaults);
  // The items of a family that have a key set (0 .. count-1; throws ConfigError naming the
  // first missing item if they are not consecutive from 0).
  unsigned family_items(const std::string& prefix) const;

  // Sets a key from text (a preset or --set KEY=VALUE). `origin` prefixes errors.
  void set_text(const std::string& key, const std::string& text, const std::string& origin);
  // "KEY=VALUE" as given to --set.
  void set_assignment(const std::string& assignment);
  // Sets every leaf of a JSON config file (objects nest with dots).
  void load_file(const std::string& path);
  void load_json(const json::Value& root, const std::string& source);

  std::int64_t get_int(const std::string& key) const;
  double get_double(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  const std::string& get_string(const std::string& key) const;  // String and Enum
  bool has(const std::string& key) const { return find(key) != nullptr; }
  // A key's value in its declared form.
  const param::Value& value(const std::string& key) const;
  // Where a key's value came from: "FILE:LINE", "--set", a note such as "pilot", or "default".
  const std::string& origin(const std::string& key) const;
  // The struct S filled from its keys (S::keys(), every one of which must be declared
  // here): the one loader of every config struct.
  template <class S>
  S load() const {
    S s{};
    for (const param::Field<S>& f : S::keys().fields()) f.set(s, value(f.key.name));
    return s;
  }
  // Sets field m's key from text (its declaration names it).
  template <class S, class T>
  void set(T S::*m, const std::string& text, const std::string& origin) {
    set_text(param::key(m), text, origin);
  }
  template <class S, class T>
  bool is_default(T S::*m) const {
    return is_default(param::key(m));
  }
  // Whether the key still has its built-in default (no preset, file or --set gave it).
  bool is_default(const std::string& key) const;
  const std::vector<Key>& keys() const { return keys_; }

  // `message` (naming config keys) prefixed with where the first key it names was set:
  // "FILE:LINE: ", "--set: ", "preset NAME: " or "default: ".
  std::string locate(const std::string& message) const;

  // The effective configuration as nested JSON.
  std::string to_json() const;
  // One line per key: name, type, default/current value, help.
  std::string describe() const;
  // The same as Markdown: a table per section (the name up to its last dot), in the
  // order of the declarations; docs/keys.md is this of the built-in defaults.
  std::string describe_markdown() const;

 private:
  Key& add(const std::string& name, Type type, const std::string& help);
  Key* find(const std::string& key);
  const Key* find(const std::string& key) const;
  const Key& get(const std::string& key, Type type) const;
  Key& known(const std::string& key, const std::string& origin);
  void set_json(const std::string& key, const json::Value& v, const std::string& origin);
  void flatten(const json::Value& v, const std::string& prefix, const std::string& source,
               std::map<std::string, int>& seen);
  static std::string value_text(const Key& k);
  struct Family {
    std::string prefix;
    unsigned max_items;
    std::vector<param::Key> keys;
    std::vector<param::Value> defaults;
  };
  // The family and item a key or section name belongs to (null: none); `name` is set to
  // the key's name within the item (empty for a section).
  const Family* family_of(const std::string& key, unsigned& item, std::string& name) const;

  std::vector<Key> keys_;
  std::vector<Family> families_;
};

}  // namespace ssd
