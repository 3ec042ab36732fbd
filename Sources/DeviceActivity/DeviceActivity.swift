@_exported import FamilyControls
// DeviceActivity: schedules, events, the center that registers them and the monitor
// that receives their callbacks. Re-exports the token types they are built on.
@_exported import ManagedSettings
