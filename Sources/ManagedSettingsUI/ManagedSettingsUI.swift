// ManagedSettingsUI: shield configurations. Their types arrive with the shield work;
// this module re-exports ManagedSettings so configuration data sources see the tokens.
@_exported import ManagedSettings
