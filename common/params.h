// Configuration keys declared beside the fields they set (the idea of VCML's property<T>
// and SCC's cci_param members, without the library). A config struct S declares its keys
// in one table, `static const param::Table<S>& keys()`, defined next to its other code:
// each key's full dotted name (DESIGN.md section 10), type, range or choices and help
// line, bound to the field it fills; its default is the value the struct's own
// initialiser gives the field. The composition root (sc_main/settings.h) gathers the
// tables: --list-keys, --check, the effective config.json and docs/keys.md come from
// them, and one generic loader fills each struct. Code that names a key in a message
// takes the name from the table (param::key(&S::field)), so each name is written once.
#pragma once

#include <cstdint>
#include <algorithm>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ssd::param {

enum class Type { Int, Double, Bool, String, Enum };

// A key's value in the form its type keeps (Int: i, Double: d, Bool: b, String and Enum: s).
struct Value {
  std::int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string s;
};

// What a key is: what --list-keys prints of it (and docs/keys.md, with the unit).
struct Key {
  std::string name;
  Type type = Type::Int;
  std::string help;
  std::int64_t imin = 0, imax = 0;
  double dmin = 0, dmax = 0;
  std::vector<std::string> choices;
  std::string unit;  // of a number: "us", "bytes", "MHz", ...; empty: a count, a fraction or none
};

// A number as --list-keys and the messages print it (15 significant digits).
inline std::string number_text(double v) {
  std::ostringstream os;
  os << std::setprecision(15) << v;
  return os.str();
}

// A value as text (a choice or string without quotes).
inline std::string value_text(const Key& k, const Value& v) {
  switch (k.type) {
    case Type::Int: return std::to_string(v.i);
    case Type::Double: return number_text(v.d);
    case Type::Bool: return v.b ? "true" : "false";
    case Type::String:
    case Type::Enum: return v.s;
  }
  return "";
}

// A number key's range as text, "[lo, hi]"; empty for the other types.
inline std::string range_text(const Key& k) {
  if (k.type == Type::Int) return "[" + std::to_string(k.imin) + ", " + std::to_string(k.imax) + "]";
  if (k.type == Type::Double) return "[" + number_text(k.dmin) + ", " + number_text(k.dmax) + "]";
  return "";
}

// A choice key's choices, joined by `sep`.
inline std::string choices_text(const Key& k, const std::string& sep) {
  std::string list;
  for (std::size_t i = 0; i < k.choices.size(); ++i) list += (i ? sep : "") + k.choices[i];
  return list;
}

// Whether v is within k's range or choices; else the message naming the key.
inline std::string out_of_range(const Key& k, const Value& v) {
  switch (k.type) {
    case Type::Int:
      if (v.i < k.imin || v.i > k.imax) return k.name + " = " + std::to_string(v.i) + " is out of range " + range_text(k);
      break;
    case Type::Double:
      if (!(v.d >= k.dmin && v.d <= k.dmax))
        return k.name + " = " + number_text(v.d) + " is out of range " + range_text(k);
      break;
    case Type::Enum:
      if (std::find(k.choices.begin(), k.choices.end(), v.s) == k.choices.end())
        return k.name + ": '" + v.s + "' is not one of: " + choices_text(k, ", ");
      break;
    case Type::Bool:
    case Type::String:
      break;
  }
  return "";
}

// A key bound to a field of S.
template <class S>
struct Field {
  Key key;
  Value def;                                          // the field's value in S{}
  std::function<void(S&, const Value&)> set;          // the value into the field
  std::function<Value(const S&)> get;                 // the field's value
  std::function<const void*(const S&)> where;         // the field's address (to find a key by field)
};

template <class S>
class Table {
 public:
  // An integer field (any integral type; the range must fit it).
  template <class T>
  Table& integer(const std::string& name, T S::*m, std::int64_t min, std::int64_t max, const std::string& help) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "integer(): an integral field");
    using L = std::numeric_limits<T>;
    if (min < static_cast<std::int64_t>(L::min()) ||
        (max > 0 && static_cast<std::uint64_t>(max) > static_cast<std::uint64_t>(L::max())))
      throw std::logic_error("key " + name + ": its range does not fit its field's type");
    Key k{name, Type::Int, help, min, max, 0, 0, {}, {}};
    return add(std::move(k), [m](S& s, const Value& v) { s.*m = static_cast<T>(v.i); },
               [m](const S& s) { Value v; v.i = static_cast<std::int64_t>(s.*m); return v; }, m);
  }
  Table& number(const std::string& name, double S::*m, double min, double max, const std::string& help) {
    Key k{name, Type::Double, help, 0, 0, min, max, {}, {}};
    return add(std::move(k), [m](S& s, const Value& v) { s.*m = v.d; },
               [m](const S& s) { Value v; v.d = s.*m; return v; }, m);
  }
  Table& flag(const std::string& name, bool S::*m, const std::string& help) {
    Key k{name, Type::Bool, help, 0, 0, 0, 0, {}, {}};
    return add(std::move(k), [m](S& s, const Value& v) { s.*m = v.b; },
               [m](const S& s) { Value v; v.b = s.*m; return v; }, m);
  }
  Table& text(const std::string& name, std::string S::*m, const std::string& help) {
    Key k{name, Type::String, help, 0, 0, 0, 0, {}, {}};
    return add(std::move(k), [m](S& s, const Value& v) { s.*m = v.s; },
               [m](const S& s) { Value v; v.s = s.*m; return v; }, m);
  }
  // A choice kept as its name.
  Table& choice(const std::string& name, std::string S::*m, std::vector<std::string> choices, const std::string& help) {
    Key k{name, Type::Enum, help, 0, 0, 0, 0, std::move(choices), {}};
    return add(std::move(k), [m](S& s, const Value& v) { s.*m = v.s; },
               [m](const S& s) { Value v; v.s = s.*m; return v; }, m);
  }
  // A choice kept as the value it names (a bool or an enum of the struct's layer).
  template <class T>
  Table& choice(const std::string& name, T S::*m, std::vector<std::pair<std::string, T>> map, const std::string& help) {
    Key k{name, Type::Enum, help, 0, 0, 0, 0, {}, {}};
    for (const auto& [text, value] : map) k.choices.push_back(text);
    return add(std::move(k),
               [m, map, name](S& s, const Value& v) {
                 for (const auto& [text, value] : map)
                   if (text == v.s) {
                     s.*m = value;
                     return;
                   }
                 throw std::logic_error("key " + name + ": '" + v.s + "' is none of its choices");
               },
               [m, map, name](const S& s) {
                 for (const auto& [text, value] : map)
                   if (value == s.*m) { Value v; v.s = text; return v; }
                 throw std::logic_error("key " + name + ": the field holds a value none of its choices names");
               },
               m);
  }
  // A choice that sets several fields (its anchor `m` names it for key()).
  template <class M>
  Table& choice(const std::string& name, M S::*m, std::vector<std::string> choices,
                std::function<void(S&, const std::string&)> set, std::function<std::string(const S&)> get,
                const std::string& help) {
    Key k{name, Type::Enum, help, 0, 0, 0, 0, std::move(choices), {}};
    return add(std::move(k), [set](S& s, const Value& v) { set(s, v.s); },
               [get](const S& s) { Value v; v.s = get(s); return v; }, m);
  }
  // The unit of the key declared last (Key::unit).
  Table& unit(const std::string& u) {
    if (fields_.empty()) throw std::logic_error("param::Table::unit(): no key declared yet");
    fields_.back().key.unit = u;
    return *this;
  }
  // The keys of a struct S holds as its member `m` (declared by Sub's own table).
  template <class Sub>
  Table& part(Sub S::*m, const Table<Sub>& sub) {
    for (const Field<Sub>& f : sub.fields()) {
      for (const Field<S>& h : fields_)
        if (h.key.name == f.key.name) throw std::logic_error("config key declared twice: " + f.key.name);
      Field<S> g;
      g.key = f.key;
      g.def = f.def;
      g.set = [m, set = f.set](S& s, const Value& v) { set(s.*m, v); };
      g.get = [m, get = f.get](const S& s) { return get(s.*m); };
      g.where = [m, where = f.where](const S& s) { return where(s.*m); };
      fields_.push_back(std::move(g));
    }
    return *this;
  }

  const std::vector<Field<S>>& fields() const { return fields_; }

  // The name of the key that fills field `m` (of S, or of a part of S).
  const std::string& name_of(const void* field_in_probe) const {
    for (const Field<S>& f : fields_)
      if (f.where(probe()) == field_in_probe) return f.key.name;
    throw std::logic_error("param::key: no key fills this field");
  }
  static const S& probe() {
    static const S s{};
    return s;
  }

 private:
  template <class M>
  Table& add(Key k, std::function<void(S&, const Value&)> set, std::function<Value(const S&)> get, M S::*m) {
    for (const Field<S>& f : fields_)
      if (f.key.name == k.name) throw std::logic_error("config key declared twice: " + k.name);
    Field<S> f;
    f.key = std::move(k);
    f.set = std::move(set);
    f.get = std::move(get);
    f.where = [m](const S& s) -> const void* { return &(s.*m); };
    f.def = f.get(S{});
    const std::string wrong = out_of_range(f.key, f.def);
    if (!wrong.empty()) throw std::logic_error("the default of " + wrong);
    fields_.push_back(std::move(f));
    return *this;
  }
  std::vector<Field<S>> fields_;
};

// The fields of s outside their keys' ranges or choices, each message naming its key (a
// struct built by code rather than loaded: the loader refuses such values where given).
template <class S>
std::vector<std::string> check(const S& s) {
  std::vector<std::string> errs;
  for (const Field<S>& f : S::keys().fields()) {
    std::string e = out_of_range(f.key, f.get(s));
    if (!e.empty()) errs.push_back(std::move(e));
  }
  return errs;
}

// The names of a table's keys.
template <class S>
std::vector<std::string> names(const Table<S>& t) {
  std::vector<std::string> out;
  for (const Field<S>& f : t.fields()) out.push_back(f.key.name);
  return out;
}

// The full dotted name of the key that fills S's field `m`: how code names a key in a
// message, so that the name is written only in its declaration.
template <class S, class T>
const std::string& key(T S::*m) {
  // A struct member shares its address with its first field: name fields, not parts.
  static_assert(!std::is_class_v<T> || std::is_same_v<T, std::string>, "key(): a field that a key fills");
  const S& p = Table<S>::probe();
  return S::keys().name_of(&(p.*m));
}

}  // namespace ssd::param
