// FamilyControls: authorization and the selection of apps, categories and web domains.
// The token types live in ManagedSettings (as in Apple's SDK) and are re-exported here,
// so `import FamilyControls` alone is enough to hold an `ApplicationToken`.
@_exported import ManagedSettings
