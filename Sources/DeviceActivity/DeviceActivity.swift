// DeviceActivity: schedules, events and monitors. Their types arrive with the engine;
// this module re-exports the token types it is built on.
@_exported import ManagedSettings
@_exported import FamilyControls
