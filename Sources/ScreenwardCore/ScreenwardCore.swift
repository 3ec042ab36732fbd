/// The core as one module: the six modules it is made of, re-exported, so a program or a
/// test writes `import ScreenwardCore` and sees all of them, as before the core was split.
///
/// From the bottom: `ScreenwardBasics` (support, tokens, application identity, web names),
/// `UsageLedger` (the ledger, accounting, monitoring), `ScreenTimePolicy` (settings,
/// shields, rules, reports), `AppExtensions` (apps' manifests and extension processes),
/// `ScreenTimeOwner` (the state owner's service) and `ChildModeCore` (child mode and the
/// picker). Each imports only those below it (docs/architecture.md, "Modules").
/// The `Screenward` SPI is re-exported with them.
@_spi(Screenward) @_exported import AppExtensions
@_spi(Screenward) @_exported import ChildModeCore
@_spi(Screenward) @_exported import ScreenTimeOwner
@_spi(Screenward) @_exported import ScreenTimePolicy
@_spi(Screenward) @_exported import ScreenwardBasics
@_spi(Screenward) @_exported import UsageLedger
