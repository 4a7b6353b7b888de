#include "sc_main/config.h"

#include "common/text_fields.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace ssd {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}


const char* type_name(Config::Type t) {
  switch (t) {
    case Config::Type::Int: return "integer";
    case Config::Type::Double: return "number";
    case Config::Type::Bool: return "boolean";
    case Config::Type::String: return "string";
    case Config::Type::Enum: return "choice";
  }
  return "?";
}

}  // namespace

void Config::add(const param::Key& key, const param::Value& def) {
  Key& k = add(key.name, key.type, key.help);
  static_cast<param::Key&>(k) = key;
  static_cast<param::Value&>(k) = def;
}

const param::Value& Config::value(const std::string& key) const {
  const Key* k = find(key);
  if (!k) throw std::logic_error("config key not declared: " + key);
  return *k;
}

const std::string& Config::origin(const std::string& key) const {
  const Key* k = find(key);
  if (!k) throw std::logic_error("config key not declared: " + key);
  return k->origin;
}

Config::Key& Config::add(const std::string& name, Type type, const std::string& help) {
  if (find(name)) throw std::logic_error("config key declared twice: " + name);
  keys_.push_back(Key{});
  Key& k = keys_.back();
  k.name = name;
  k.type = type;
  k.help = help;
  return k;
}

Config::Key* Config::find(const std::string& key) {
  for (Key& k : keys_)
    if (k.name == key) return &k;
  return nullptr;
}

const Config::Key* Config::find(const std::string& key) const {
  for (const Key& k : keys_)
    if (k.name == key) return &k;
  return nullptr;
}

void Config::declare_family(const std::string& prefix, unsigned max_items, std::vector<param::Key> keys,
                            std::vector<param::Value> defaults) {
  families_.push_back(Family{prefix, max_items, std::move(keys), std::move(defaults)});
}

const Config::Family* Config::family_of(const std::string& key, unsigned& item, std::string& name) const {
  for (const Family& f : families_) {
    if (key.compare(0, f.prefix.size() + 1, f.prefix + ".") != 0) continue;
    const std::size_t start = f.prefix.size() + 1, dot = key.find('.', start);
    const std::string index = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (index.empty() || index.size() > 5 || index.find_first_not_of("0123456789") != std::string::npos) return nullptr;
    if (index.size() > 1 && index[0] == '0') return nullptr;
    item = static_cast<unsigned>(std::stoul(index));
    if (item >= f.max_items) return nullptr;
    name = dot == std::string::npos ? std::string() : key.substr(dot + 1);
    return &f;
  }
  return nullptr;
}

unsigned Config::family_items(const std::string& prefix) const {
  std::vector<bool> set;
  for (const Key& k : keys_) {
    unsigned item = 0;
    std::string name;
    const Family* f = family_of(k.name, item, name);
    if (!f || f->prefix != prefix) continue;
    if (set.size() <= item) set.resize(item + 1, false);
    set[item] = true;
  }
  for (unsigned i = 0; i < set.size(); ++i) {
    if (set[i]) continue;
    std::string last;  // a key of the last item, to say where it was set
    for (const Key& k : keys_)
      if (k.name.compare(0, prefix.size() + 1 + std::to_string(set.size() - 1).size() + 1,
                         prefix + "." + std::to_string(set.size() - 1) + ".") == 0)
        last = k.name;
    throw ConfigError(locate(last + ": " + prefix + "." + std::to_string(i) + " is not given (the items of " + prefix +
                             " are numbered from 0 without gaps)"));
  }
  return static_cast<unsigned>(set.size());
}

Config::Key& Config::known(const std::string& key, const std::string& origin) {
  if (Key* k = find(key)) return *k;
  unsigned item = 0;
  std::string name;
  if (const Family* f = family_of(key, item, name)) {
    for (std::size_t i = 0; i < f->keys.size(); ++i) {
      if (f->keys[i].name != name) continue;
      param::Key pk = f->keys[i];
      pk.name = key;
      add(pk, f->defaults[i]);
      return keys_.back();
    }
    std::string names;
    for (const param::Key& k : f->keys) names += (names.empty() ? "" : ", ") + k.name;
    throw ConfigError(origin + ": unknown key '" + key + "': an item of " + f->prefix + " has the keys " + names);
  }
  std::string best;
  std::size_t best_d = 4;
  for (const Key& k : keys_) {
    std::size_t d = edit_distance(key, k.name);
    if (d < best_d) {
      best_d = d;
      best = k.name;
    }
  }
  std::string msg = origin + ": unknown key '" + key + "'";
  if (!best.empty()) msg += " (did you mean '" + best + "'?)";
  msg += "; 'ssdsim --list-keys' lists them all";
  throw ConfigError(msg);
}

void Config::set_text(const std::string& key, const std::string& text, const std::string& origin) {
  Key& k = known(key, origin);
  const std::string where = origin + ": " + key;
  switch (k.type) {
    case Type::Int: {
      std::int64_t v;
      if (!parse_whole(text, v))
        throw ConfigError(where + ": expected an integer (decimal digits, an optional sign), got " + quote(text));
      if (v < k.imin || v > k.imax)
        throw ConfigError(where + " = " + text + " is out of range " + param::range_text(k));
      k.i = v;
      break;
    }
    case Type::Double: {
      double v;
      if (!parse_real(text, v))
        throw ConfigError(where + ": expected a decimal number (an optional sign, digits, an optional fraction "
                                  "and exponent), got " + quote(text));
      if (v < k.dmin || v > k.dmax)
        throw ConfigError(where + " = " + text + " is out of range " + param::range_text(k));
      k.d = v;
      break;
    }
    case Type::Bool:
      if (text == "true") k.b = true;
      else if (text == "false") k.b = false;
      else throw ConfigError(where + ": expected true or false, got '" + text + "'");
      break;
    case Type::String:
      k.s = text;
      break;
    case Type::Enum: {
      if (std::find(k.choices.begin(), k.choices.end(), text) == k.choices.end())
        throw ConfigError(where + ": '" + text + "' is not one of: " + param::choices_text(k, ", "));
      k.s = text;
      break;
    }
  }
  k.origin = origin;
}

void Config::set_assignment(const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + assignment + ": expected KEY=VALUE");
  set_text(assignment.substr(0, eq), assignment.substr(eq + 1), "--set");
}

void Config::set_json(const std::string& key, const json::Value& v, const std::string& origin) {
  Key& k = known(key, origin);
  using K = json::Value::Kind;
  auto wrong = [&](const char* expected) {
    throw ConfigError(origin + ": " + key + ": expected " + expected + ", got " + v.kind_name() +
                      (v.kind == K::String ? " \"" + v.str + "\"" : std::string()));
  };
  switch (k.type) {
    case Type::Int:
      if (v.kind != K::Number || !v.is_integer) wrong("an integer");
      set_text(key, v.str, origin);
      break;
    case Type::Double:
      if (v.kind != K::Number) wrong("a number");
      set_text(key, v.str, origin);
      break;
    case Type::Bool:
      if (v.kind != K::Bool) wrong("true or false");
      set_text(key, v.b ? "true" : "false", origin);
      break;
    case Type::String:
      if (v.kind != K::String) wrong("a string");
      set_text(key, v.str, origin);
      break;
    case Type::Enum:  // a choice; true and false may be choices (host.lookahead_thread)
      if (v.kind == K::Bool) {
        set_text(key, v.b ? "true" : "false", origin);
        break;
      }
      if (v.kind != K::String) wrong("a string");
      set_text(key, v.str, origin);
      break;
  }
}

std::string Config::locate(const std::string& message) const {
  const Key* first = nullptr;
  std::size_t at = std::string::npos;
  for (const Key& k : keys_) {  // the earliest-named key (the longest name where two start there)
    const std::size_t p = message.find(k.name);
    if (p == std::string::npos) continue;
    if (p < at || (p == at && k.name.size() > first->name.size())) {
      at = p;
      first = &k;
    }
  }
  return first ? first->origin + ": " + message : message;
}

void Config::flatten(const json::Value& v, const std::string& prefix, const std::string& source,
                     std::map<std::string, int>& seen) {
  for (const auto& [name, child] : v.members) {
    if (prefix.empty() && name == kNotesSection) continue;  // notes, not keys (checked_notes)
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    const std::string origin = source + ":" + std::to_string(child.line);
    const bool family = std::any_of(families_.begin(), families_.end(),
                                    [&](const Family& f) { return f.prefix == key; });
    unsigned item = 0;
    std::string in_item;
    const Family* of_item = family_of(key, item, in_item);
    if (family && child.kind == json::Value::Kind::Array) {  // PREFIX: [ {item 0}, {item 1}, ... ]
      for (std::size_t i = 0; i < child.items.size(); ++i) {
        const json::Value& it = child.items[i];
        if (it.kind != json::Value::Kind::Object)
          throw ConfigError(source + ":" + std::to_string(it.line) + ": " + key + "[" + std::to_string(i) +
                            "]: an object of keys where " + it.kind_name() + " is");
        if (it.members.empty())  // an item exists by its keys: an empty one would vanish
          throw ConfigError(source + ":" + std::to_string(it.line) + ": " + key + "[" + std::to_string(i) +
                            "]: an empty item (give it at least one key)");
        json::Value wrapper;
        wrapper.kind = json::Value::Kind::Object;
        wrapper.members.emplace_back(std::to_string(i), it);
        flatten(wrapper, key, source, seen);
      }
      continue;
    }
    if (child.kind == json::Value::Kind::Object) {
      bool is_section = family || (of_item && in_item.empty());
      for (const Family& f : families_)
        if (f.prefix.compare(0, key.size() + 1, key + ".") == 0) is_section = true;
      for (const Key& k : keys_)
        if (k.name.compare(0, key.size() + 1, key + ".") == 0) is_section = true;
      if (!is_section) {
        known(key, origin);  // throws: unknown key
        throw ConfigError(origin + ": " + key + ": an object where a value is due");
      }
      flatten(child, key, source, seen);
    } else {
      // Every spelling of a key ("nand.channels", or "channels" inside "nand") is the
      // same key: set twice in one file is an error naming both lines.
      const auto [at, fresh] = seen.emplace(key, child.line);
      if (!fresh)
        throw ConfigError(origin + ": " + key + " is set twice in this file (also at line " +
                          std::to_string(at->second) + ")");
      set_json(key, child, origin);
    }
  }
}

// A config file's "preset" section: notes, not keys. "description" (text) and
// "sources" (dotted key -> where its value comes from, text), checked here; returns the
// sources (null without any), whose keys load_json checks against the keys set.
static const json::Value* checked_notes(const json::Value& root, const std::string& source) {
  const json::Value* notes = nullptr;  // at most one: the reader refuses a key given twice
  for (const auto& [name, v] : root.members)
    if (name == kNotesSection) notes = &v;
  if (!notes) return nullptr;
  if (notes->kind != json::Value::Kind::Object)
    throw ConfigError(source + ":" + std::to_string(notes->line) + ": " + kNotesSection +
                      ": an object of notes (description, sources) where " + notes->kind_name() + " is");
  const json::Value* sources = nullptr;
  for (const auto& [name, v] : notes->members) {
    const std::string at = source + ":" + std::to_string(v.line) + ": " + kNotesSection + "." + name;
    if (name == "description") {
      if (v.kind != json::Value::Kind::String) throw ConfigError(at + ": expected a string, got " + v.kind_name());
    } else if (name == "sources") {
      if (v.kind != json::Value::Kind::Object) throw ConfigError(at + ": expected an object, got " + v.kind_name());
      for (const auto& [key, note] : v.members)
        if (note.kind != json::Value::Kind::String)
          throw ConfigError(source + ":" + std::to_string(note.line) + ": " + kNotesSection + ".sources." + key +
                            ": expected a string (where the value comes from), got " + note.kind_name());
      sources = &v;
    } else {
      throw ConfigError(at + ": unknown note (a preset section holds description and sources)");
    }
  }
  return sources;
}

void Config::load_json(const json::Value& root, const std::string& source) {
  if (root.kind != json::Value::Kind::Object)
    throw ConfigError(source + ":" + std::to_string(root.line) +
                      ": a config file must be a JSON object");
  const json::Value* sources = checked_notes(root, source);
  std::map<std::string, int> seen;
  flatten(root, "", source, seen);  // the notes section aside
  if (sources)
    for (const auto& [key, note] : sources->members)
      if (!seen.count(key))
        throw ConfigError(source + ":" + std::to_string(note.line) + ": " + kNotesSection + ".sources." + key +
                          ": a source for a key this file does not set");
}

void Config::load_file(const std::string& path) {
  json::Value root;
  try {
    root = json::parse_file(path);
  } catch (const json::ParseError& e) {
    throw ConfigError(e.what());
  }
  load_json(root, path);
}

const Config::Key& Config::get(const std::string& key, Type type) const {
  const Key* k = find(key);
  if (!k) throw std::logic_error("config key not declared: " + key);
  const bool ok = k->type == type || (type == Type::String && k->type == Type::Enum);
  if (!ok) throw std::logic_error("config key " + key + " read with the wrong type");
  return *k;
}

bool Config::is_default(const std::string& key) const {
  const Key* k = find(key);
  if (!k) throw ConfigError("internal: unknown configuration key '" + key + "'");
  return k->origin == "default";
}

std::int64_t Config::get_int(const std::string& key) const { return get(key, Type::Int).i; }
double Config::get_double(const std::string& key) const { return get(key, Type::Double).d; }
bool Config::get_bool(const std::string& key) const { return get(key, Type::Bool).b; }
const std::string& Config::get_string(const std::string& key) const {
  return get(key, Type::String).s;
}

std::string Config::value_text(const Key& k) {
  const std::string text = param::value_text(k, k);
  return k.type == Type::String || k.type == Type::Enum ? json::quote(text) : text;
}

std::string Config::to_json() const {
  // Build the nested object in declaration order of the sections.
  json::Value root;
  root.kind = json::Value::Kind::Object;
  for (const Key& k : keys_) {
    json::Value* node = &root;
    std::size_t start = 0;
    for (;;) {
      const std::size_t dot = k.name.find('.', start);
      const std::string part = k.name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos) {
        json::Value leaf;
        switch (k.type) {
          case Type::Int:
          case Type::Double:
            leaf.kind = json::Value::Kind::Number;
            leaf.str = value_text(k);
            break;
          case Type::Bool:
            leaf.kind = json::Value::Kind::Bool;
            leaf.b = k.b;
            break;
          case Type::String:
          case Type::Enum:
            leaf.kind = json::Value::Kind::String;
            leaf.str = k.s;
            break;
        }
        node->members.emplace_back(part, leaf);
        break;
      }
      json::Value* next = nullptr;
      for (auto& m : node->members)
        if (m.first == part) next = &m.second;
      if (!next) {
        json::Value obj;
        obj.kind = json::Value::Kind::Object;
        node->members.emplace_back(part, obj);
        next = &node->members.back().second;
      }
      node = next;
      start = dot + 1;
    }
  }
  std::string out;
  json::write(out, root);
  return out + "\n";
}

std::string Config::describe_markdown() const {
  const auto cell = [](std::string text) {
    std::string out;
    for (char c : text) {
      if (c == '|') out += "\\|";
      else out += c;
    }
    return out;
  };
  std::vector<std::string> sections;
  for (const Key& k : keys_) {
    const std::string section = k.name.substr(0, k.name.rfind('.'));
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) sections.push_back(section);
  }
  std::ostringstream os;
  os << "# Configuration keys\n\n"
        "Every key of `ssdsim`, generated from the declarations beside the config structs\n"
        "(`common/params.h`) by `ssdsim --list-keys=markdown`; a test checks that this file\n"
        "matches them. Values: built-in defaults (a preset or config file changes them;\n"
        "`ssdsim --preset NAME --list-keys` shows a preset's).\n";
  for (const Family& f : families_) sections.push_back(f.prefix + ".<i>");
  for (const std::string& section : sections) {
    const Family* fam = nullptr;
    for (const Family& f : families_)
      if (section == f.prefix + ".<i>") fam = &f;
    if (fam) {
      os << "\n## " << section << "\n\nUp to " << fam->max_items << " items, `" << fam->prefix
         << ".0.` to `" << fam->prefix << "." << fam->max_items - 1
         << ".` (or a JSON array at `" << fam->prefix << "`), each key as below."
         << "\n\n| key | type | default | unit | range or choices | meaning |\n|---|---|---|---|---|---|\n";
      for (std::size_t i = 0; i < fam->keys.size(); ++i) {
        Key k;
        static_cast<param::Key&>(k) = fam->keys[i];
        static_cast<param::Value&>(k) = fam->defaults[i];
        const std::string range = k.type == Type::Enum ? param::choices_text(k, " \\| ") : param::range_text(k);
        os << "| `" << section << "." << k.name << "` | " << type_name(k.type) << " | `" << cell(value_text(k))
           << "` | " << k.unit << " | " << range << " | " << cell(k.help) << " |\n";
      }
      continue;
    }
    os << "\n## " << section
       << "\n\n| key | type | default | unit | range or choices | meaning |\n|---|---|---|---|---|---|\n";
    for (const Key& k : keys_) {
      if (k.name.substr(0, k.name.rfind('.')) != section) continue;
      const std::string range = k.type == Type::Enum ? param::choices_text(k, " \\| ") : param::range_text(k);
      os << "| `" << k.name << "` | " << type_name(k.type) << " | `" << cell(value_text(k)) << "` | " << k.unit
         << " | " << range << " | " << cell(k.help) << " |\n";
    }
  }
  return os.str();
}

std::string Config::describe() const {
  std::ostringstream os;
  for (const Key& k : keys_) {
    os << std::left << std::setw(30) << k.name << ' ' << std::setw(8) << type_name(k.type) << ' '
       << std::setw(14) << value_text(k);
    if (k.type == Type::Int || k.type == Type::Double) os << " " << param::range_text(k);
    if (k.type == Type::Enum) os << " {" << param::choices_text(k, "|") << "}";
    os << "  " << k.help << '\n';
  }
  for (const Family& f : families_)
    for (std::size_t i = 0; i < f.keys.size(); ++i) {
      Key k;
      static_cast<param::Key&>(k) = f.keys[i];
      static_cast<param::Value&>(k) = f.defaults[i];
      os << std::left << std::setw(30) << f.prefix + ".<i>." + k.name << ' ' << std::setw(8) << type_name(k.type)
         << ' ' << std::setw(14) << value_text(k);
      if (k.type == Type::Int || k.type == Type::Double) os << " " << param::range_text(k);
      if (k.type == Type::Enum) os << " {" << param::choices_text(k, "|") << "}";
      os << "  " << k.help << '\n';
    }
  return os.str();
}

}  // namespace ssd
