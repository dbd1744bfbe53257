//===- CPassAdapter.cpp - C pass descriptors as real mlir::Pass -*- C++ -*-===//
//
// The one piece of C++ behind every dlc pass: it reads a DlcPassDescriptor
// (dlc-c/Pass.h) and presents it to MLIR as an ordinary pass with typed
// options, statistics and dependent dialects. All pass logic stays in C.
//
//===----------------------------------------------------------------------===//

#include "dlc-c/Pass.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {
template <typename T>
using PassOpt = detail::PassOptions::Option<T>;
template <typename T>
using PassList = detail::PassOptions::ListOption<T>;

bool parseBoolDefault(const char *s) {
  return s && (!std::strcmp(s, "true") || !std::strcmp(s, "1"));
}

std::vector<int64_t> parseListDefault(const char *s) {
  std::vector<int64_t> values;
  for (const char *p = s; p && *p;) {
    char *end;
    values.push_back(std::strtoll(p, &end, 10));
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p) // not a number: stop rather than loop
      break;
  }
  return values;
}
} // namespace

/// The option values behind the C handle. Options are created on a
/// detail::PassOptions (a pass's own, or a pipeline's) by `make`.
struct DlcOptions {
  const DlcOptionDesc *descs = nullptr;
  intptr_t count = 0;
  std::vector<std::unique_ptr<llvm::cl::Option>> slots;

  /// `Maker` creates options on its parent: `scalar<T>(name, args...)` and
  /// `list<T>(name, args...)`.
  template <typename Maker>
  void build(const DlcOptionDesc *d, intptr_t n, Maker &&maker) {
    descs = d;
    count = n;
    for (intptr_t i = 0; i < n; ++i) {
      const DlcOptionDesc &o = d[i];
      auto help = llvm::cl::desc(o.help ? o.help : "");
      const char *def = o.defaultValue;
      switch (o.kind) {
      case DLC_OPTION_BOOL:
        slots.push_back(maker.template scalar<bool>(
            o.name, help, llvm::cl::init(parseBoolDefault(def))));
        break;
      case DLC_OPTION_INT:
        slots.push_back(maker.template scalar<int64_t>(
            o.name, help, llvm::cl::init<int64_t>(def ? std::strtoll(def, nullptr, 10) : 0)));
        break;
      case DLC_OPTION_DOUBLE:
        slots.push_back(maker.template scalar<double>(
            o.name, help, llvm::cl::init(def ? std::strtod(def, nullptr) : 0.0)));
        break;
      case DLC_OPTION_STRING:
        slots.push_back(maker.template scalar<std::string>(
            o.name, help, llvm::cl::init(std::string(def ? def : ""))));
        break;
      case DLC_OPTION_INT_LIST: {
        auto list = maker.template list<int64_t>(o.name, help);
        *static_cast<PassList<int64_t> *>(list.get()) = parseListDefault(def);
        slots.push_back(std::move(list));
        break;
      }
      }
    }
  }

  template <typename OptT>
  OptT &get(const char *name, DlcOptionKind kind) const {
    for (intptr_t i = 0; i < count; ++i)
      if (!std::strcmp(descs[i].name, name)) {
        if (descs[i].kind != kind)
          llvm::report_fatal_error(llvm::Twine("dlc: option '") + name +
                                   "' read with the wrong kind");
        return *static_cast<OptT *>(slots[i].get());
      }
    llvm::report_fatal_error(llvm::Twine("dlc: no option named '") + name + "'");
  }
};

namespace {

/// A pass whose behaviour comes from a C descriptor.
class CPass : public Pass {
public:
  explicit CPass(const DlcPassDescriptor *desc)
      : Pass(TypeID::getFromOpaquePointer(desc),
             desc->anchor ? std::optional<StringRef>(desc->anchor)
                          : std::nullopt),
        desc(desc) {
    options.build(desc->options, desc->numOptions, OptionMaker{*this});
    for (intptr_t i = 0; i < desc->numStatistics; ++i)
      statistics.push_back(std::make_unique<Statistic>(
          this, desc->statistics[i].name, desc->statistics[i].help));
  }

  CPass(const CPass &other) : CPass(other.desc) { copyOptionValuesFrom(&other); }

  ~CPass() override {
    if (state && desc->destroyState)
      desc->destroyState(state);
  }

  StringRef getArgument() const override { return desc->argument; }
  StringRef getDescription() const override { return desc->summary; }
  StringRef getName() const override { return desc->argument; }

  void getDependentDialects(DialectRegistry &registry) const override {
    if (desc->getDependentDialects)
      desc->getDependentDialects(wrap(&registry));
  }

  bool canScheduleOn(RegisteredOperationName opName) const override {
    return !desc->anchor || opName.getStringRef() == desc->anchor;
  }

  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<CPass>(*this);
  }

  void runOnOperation() override {
    // Clones never see initialize(): build state lazily, per instance.
    if (!stateBuilt) {
      state = desc->createState ? desc->createState(wrap(&getContext()), &options)
                                : nullptr;
      stateBuilt = true;
    }
    if (mlirLogicalResultIsFailure(
            desc->run(wrap(getOperation()), state, asHandle())))
      signalPassFailure();
  }

  const DlcOptions &getOptions() const { return options; }

  void addStatistic(const char *name, uint64_t delta) {
    for (intptr_t i = 0; i < desc->numStatistics; ++i)
      if (!std::strcmp(desc->statistics[i].name, name)) {
        *statistics[i] += delta;
        return;
      }
    llvm::report_fatal_error(llvm::Twine("dlc: no statistic named '") + name + "'");
  }

  DlcPass *asHandle() { return reinterpret_cast<DlcPass *>(this); }
  static CPass *fromHandle(DlcPass *p) { return reinterpret_cast<CPass *>(p); }
  static const CPass *fromHandle(const DlcPass *p) {
    return reinterpret_cast<const CPass *>(p);
  }

private:
  // Pass::Option registers itself with this pass's own option set.
  struct OptionMaker {
    CPass &pass;
    template <typename T, typename... Args>
    std::unique_ptr<llvm::cl::Option> scalar(const char *name, Args &&...args) {
      return std::make_unique<Pass::Option<T>>(pass, name, std::forward<Args>(args)...);
    }
    template <typename T, typename... Args>
    std::unique_ptr<llvm::cl::Option> list(const char *name, Args &&...args) {
      return std::make_unique<Pass::ListOption<T>>(pass, name, std::forward<Args>(args)...);
    }
  };

  const DlcPassDescriptor *desc;
  DlcOptions options;
  std::vector<std::unique_ptr<Statistic>> statistics;
  void *state = nullptr;
  bool stateBuilt = false;
};

/// The options of one pipeline invocation.
struct PipelineOptions : public detail::PassOptions {
  explicit PipelineOptions(const DlcPipelineDescriptor *desc) {
    values.build(desc->options, desc->numOptions, OptionMaker{*this});
  }
  DlcOptions values;

private:
  struct OptionMaker {
    PipelineOptions &parent;
    template <typename T, typename... Args>
    std::unique_ptr<llvm::cl::Option> scalar(const char *name, Args &&...args) {
      return std::make_unique<PassOpt<T>>(parent, name, std::forward<Args>(args)...);
    }
    template <typename T, typename... Args>
    std::unique_ptr<llvm::cl::Option> list(const char *name, Args &&...args) {
      return std::make_unique<PassList<T>>(parent, name, std::forward<Args>(args)...);
    }
  };
};

} // namespace

//===----------------------------------------------------------------------===//
// C entry points
//===----------------------------------------------------------------------===//

bool dlcOptionsGetBool(const DlcOptions *o, const char *name) {
  return o->get<PassOpt<bool>>(name, DLC_OPTION_BOOL).getValue();
}
int64_t dlcOptionsGetInt(const DlcOptions *o, const char *name) {
  return o->get<PassOpt<int64_t>>(name, DLC_OPTION_INT).getValue();
}
double dlcOptionsGetDouble(const DlcOptions *o, const char *name) {
  return o->get<PassOpt<double>>(name, DLC_OPTION_DOUBLE).getValue();
}
MlirStringRef dlcOptionsGetString(const DlcOptions *o, const char *name) {
  const std::string &s =
      o->get<PassOpt<std::string>>(name, DLC_OPTION_STRING).getValue();
  return mlirStringRefCreate(s.data(), s.size());
}
intptr_t dlcOptionsGetIntList(const DlcOptions *o, const char *name,
                              const int64_t **values) {
  auto &list = o->get<PassList<int64_t>>(name, DLC_OPTION_INT_LIST);
  *values = list.empty() ? nullptr : &list[0];
  return list.size();
}

const DlcOptions *dlcPassGetOptions(const DlcPass *pass) {
  return &CPass::fromHandle(pass)->getOptions();
}

void dlcPassAddStatistic(DlcPass *pass, const char *name, uint64_t delta) {
  CPass::fromHandle(pass)->addStatistic(name, delta);
}

MlirPass dlcPassCreate(const DlcPassDescriptor *desc) {
  return wrap(static_cast<Pass *>(new CPass(desc)));
}

void dlcPassRegister(const DlcPassDescriptor *desc) {
  registerPass([desc]() -> std::unique_ptr<Pass> {
    return std::make_unique<CPass>(desc);
  });
}

void dlcPipelineRegister(const DlcPipelineDescriptor *desc) {
  registerPassPipeline(
      desc->argument, desc->summary,
      [desc](OpPassManager &pm, StringRef text,
             function_ref<LogicalResult(const Twine &)> errorHandler) {
        PipelineOptions options(desc);
        if (failed(options.parseFromString(text)))
          return errorHandler(Twine("invalid options for pipeline '") +
                              desc->argument + "': " + text);
        if (mlirLogicalResultIsFailure(desc->build(wrap(&pm), &options.values)))
          return errorHandler(Twine("could not build pipeline '") +
                              desc->argument + "'");
        return success();
      },
      [desc](function_ref<void(const detail::PassOptions &)> handler) {
        handler(PipelineOptions(desc));
      });
}
