#ifndef SCREENWARD_CAPPINDICATOR_SHIM_H
#define SCREENWARD_CAPPINDICATOR_SHIM_H
#include <libayatana-appindicator/app-indicator.h>
#include <cairo.h>
#endif
