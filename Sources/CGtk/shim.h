#ifndef SCREENWARD_CGTK_SHIM_H
#define SCREENWARD_CGTK_SHIM_H
#include <gtk/gtk.h>
#include <gdk/gdkx.h>
#endif
