// ManagedSettingsUI: shield configurations (`ShieldConfiguration`, `ShieldConfigurationDataSource`).
// This module re-exports ManagedSettings so configuration data sources see the tokens,
// the items (`Application`, `ActivityCategory`, `WebDomain`) and the shield actions.
@_exported import ManagedSettings
