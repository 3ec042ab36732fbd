/* GTK 3's layer shell (wlroots' zwlr_layer_shell_v1): a GTK window made a layer surface. */
#include <gtk-layer-shell.h>
