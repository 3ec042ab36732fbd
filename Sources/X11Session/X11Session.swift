// The X11 session module: focus, identity facts, idle, lock and window operations.
import CX11
