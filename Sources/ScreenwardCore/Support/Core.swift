// Shared helpers of the core module.
