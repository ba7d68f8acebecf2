#include "core/framework/op_def.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "absl/synchronization/mutex.h"

namespace tfd {
namespace {

struct OpRegistry {
  absl::Mutex mu;
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> ops ABSL_GUARDED_BY(mu);
};

OpRegistry& Registry() {
  static OpRegistry* const registry = new OpRegistry();
  return *registry;
}

ArgDef MakeArg(std::string name, std::string type) {
  ArgDef arg;
  arg.name = std::move(name);
  DataType fixed;
  if (DataTypeFromName(type, &fixed)) {
    arg.fixed_type = fixed;
  } else {
    arg.type_attr = std::move(type);
  }
  return arg;
}

}  // namespace

const AttrDef* OpDef::FindAttr(absl::string_view attr_name) const {
  for (const AttrDef& a : attrs) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

OpDefBuilder::OpDefBuilder(std::string name) { def_.name = std::move(name); }

OpDefBuilder& OpDefBuilder::Input(std::string name, std::string type) {
  def_.inputs.push_back(MakeArg(std::move(name), std::move(type)));
  return *this;
}

OpDefBuilder& OpDefBuilder::InputList(std::string name, std::string type,
                                      std::string number_attr) {
  ArgDef arg = MakeArg(std::move(name), std::move(type));
  arg.number_attr = number_attr;
  def_.inputs.push_back(std::move(arg));
  if (def_.FindAttr(number_attr) == nullptr) RequiredAttr(number_attr, "int");
  return *this;
}

OpDefBuilder& OpDefBuilder::HostMemoryInput(std::string name, std::string type) {
  ArgDef arg = MakeArg(std::move(name), std::move(type));
  arg.host_memory = true;
  def_.inputs.push_back(std::move(arg));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string name, std::string type) {
  def_.outputs.push_back(MakeArg(std::move(name), std::move(type)));
  return *this;
}

OpDefBuilder& OpDefBuilder::OutputList(std::string name, std::string type,
                                       std::string number_attr) {
  ArgDef arg = MakeArg(std::move(name), std::move(type));
  arg.number_attr = number_attr;
  def_.outputs.push_back(std::move(arg));
  if (def_.FindAttr(number_attr) == nullptr) RequiredAttr(number_attr, "int");
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeAttr(std::string name, std::vector<DataType> allowed) {
  if (!kernel_type_set_ && def_.kernel_type_attr.empty()) def_.kernel_type_attr = name;
  def_.attrs.push_back(AttrDef{std::move(name), "type", std::nullopt, std::move(allowed)});
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeAttr(std::string name, std::vector<DataType> allowed,
                                     DataType default_value) {
  TypeAttr(std::move(name), std::move(allowed));
  def_.attrs.back().default_value = AttrValue(default_value);
  return *this;
}

OpDefBuilder& OpDefBuilder::RequiredAttr(std::string name, std::string type) {
  def_.attrs.push_back(AttrDef{std::move(name), std::move(type), std::nullopt, {}});
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(std::string name, AttrValue default_value) {
  const char* type = AttrTypeName(default_value);
  def_.attrs.push_back(AttrDef{std::move(name), type, std::move(default_value), {}});
  return *this;
}

OpDefBuilder& OpDefBuilder::KernelTypeAttr(std::string name) {
  def_.kernel_type_attr = std::move(name);
  kernel_type_set_ = true;
  return *this;
}

OpDefBuilder& OpDefBuilder::AnyTypeKernel() {
  def_.kernel_type_attr.clear();
  kernel_type_set_ = true;
  return *this;
}

OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  def_.shape_fn = std::move(fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::Stateful() {
  def_.is_stateful = true;
  return *this;
}

OpRegistrar::OpRegistrar(const OpDefBuilder& builder) {
  auto def = std::make_unique<OpDef>(builder.Build());
  OpRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  if (!def->shape_fn || r.ops.count(def->name) > 0) {
    // A registration bug in tfd itself, found at load time.
    std::fprintf(stderr, "tfd: op '%s' registered twice or without a shape function\n",
                 def->name.c_str());
    std::abort();
  }
  // Execute relies on attr names being unique: once every AttrDef has a
  // value, a call's attrs are all known exactly when the counts agree.
  for (size_t i = 0; i < def->attrs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (def->attrs[i].name == def->attrs[j].name) {
        std::fprintf(stderr, "tfd: op '%s' declares attr '%s' twice\n", def->name.c_str(),
                     def->attrs[i].name.c_str());
        std::abort();
      }
    }
  }
  std::string name = def->name;
  r.ops.emplace(std::move(name), std::move(def));
}

// Note [Op lookup cache]. Execute looks its op up by name on every call,
// and the registry is a map behind a mutex (a library loaded late still
// registers while other threads run ops). Callers almost always pass the
// same string each time (a literal, an OpDef's own name), so a small
// per-thread cache keyed by the string's address and length answers the
// repeats without the lock or the map. A hit is confirmed by comparing the
// name itself, so a reused address never yields the wrong op; OpDefs are
// never freed, so a cached pointer stays valid. Misses (and unknown names,
// which are not cached) take the locked path.
absl::StatusOr<const OpDef*> LookupOpDef(absl::string_view name) {
  struct Slot {
    const char* data = nullptr;
    size_t size = 0;
    const OpDef* op = nullptr;
  };
  constexpr size_t kSlots = 64;
  thread_local Slot cache[kSlots];
  const uintptr_t address = reinterpret_cast<uintptr_t>(name.data());
  Slot& slot = cache[(address ^ (address >> 6) ^ name.size()) % kSlots];
  if (slot.op != nullptr && slot.data == name.data() && slot.size == name.size() &&
      slot.op->name == name) {
    return slot.op;
  }
  OpRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  auto it = r.ops.find(name);
  if (it == r.ops.end()) return NotFound("no op named '", name, "' is registered");
  slot = Slot{name.data(), name.size(), it->second.get()};
  return slot.op;
}

std::vector<const OpDef*> AllOpDefs() {
  OpRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  std::vector<const OpDef*> out;
  for (const auto& [name, def] : r.ops) out.push_back(def.get());
  return out;
}

}  // namespace tfd
