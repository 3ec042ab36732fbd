// Screenward's part inside GNOME Shell, which tells no Wayland client which window has the focus
// and lets none draw above the others. While the agent runs (it listens on a socket in the
// person's runtime folder, and takes only the Shell's own connection) this extension tells it
// each focus change (the window's process, class, sandboxed app id, title and a stable id) and
// input idle from the Shell's idle monitor, and draws the shield the agent sends over the whole
// stage, above every window, full-screen ones included, holding the keyboard until a button is
// pressed. One JSON object per line each way. GNOME Shell 43 and 44 (the module format before 45).
'use strict';

const { Clutter, Gio, GLib, Pango, Shell, St } = imports.gi;
const Main = imports.ui.main;

// Where the agent listens: a person's own, in their runtime folder.
function agentSocket() {
    return `${GLib.get_user_runtime_dir()}/screenward/shell.sock`;
}

function rgba(color, fallback) {
    if (!color)
        return fallback;
    const part = value => Math.round(Math.max(0, Math.min(1, value)) * 255);
    return `rgba(${part(color.red)}, ${part(color.green)}, ${part(color.blue)}, ${color.alpha ?? 1})`;
}

// A layer as large as the stage, under the shield's texts.
function layer(style) {
    return new St.Widget({
        x_expand: true, y_expand: true, x_align: Clutter.ActorAlign.FILL, y_align: Clutter.ActorAlign.FILL, style,
    });
}

class ShieldCover {
    // `shield`: the agent's resolved shield; `tint`: its blur style's tint.
    constructor(shield, tint, onPress) {
        this.actor = new St.Widget({
            reactive: true, can_focus: true, track_hover: true,
            x: 0, y: 0, width: global.stage.width, height: global.stage.height,
            layout_manager: new Clutter.BinLayout(),
        });
        // What is behind, blurred past reading (as the blur style Apple's shields have), then the
        // style's tint and the shield's background color over it.
        const blurred = layer('');
        blurred.add_effect(new Shell.BlurEffect({ sigma: 40, brightness: 0.8, mode: Shell.BlurMode.BACKGROUND }));
        this.actor.add_child(blurred);
        this.actor.add_child(layer(`background-color: ${rgba(tint, 'rgba(28, 28, 30, 0.9)')};`));
        this.actor.add_child(layer(`background-color: ${rgba(shield.backgroundColor, 'transparent')};`));
        const column = new St.BoxLayout({
            vertical: true, x_align: Clutter.ActorAlign.CENTER, y_align: Clutter.ActorAlign.CENTER,
            x_expand: true, y_expand: true, style: 'spacing: 18px;',
        });
        const label = (text, style) => {
            const widget = new St.Label({
                text, x_align: Clutter.ActorAlign.CENTER, style: `${style} width: 460px; text-align: center;`,
            });
            widget.clutter_text.line_wrap = true;
            widget.clutter_text.ellipsize = Pango.EllipsizeMode.NONE;
            widget.clutter_text.line_alignment = Pango.Alignment.CENTER;
            return widget;
        };
        const icon = shield.icon?.iconName
            ? new St.Icon({ icon_name: shield.icon.iconName, icon_size: 72 })
            : shield.icon?.file ? new St.Icon({ gicon: Gio.icon_new_for_string(shield.icon.file), icon_size: 72 })
                : null;
        if (icon) {
            icon.x_align = Clutter.ActorAlign.CENTER;
            column.add_child(icon);
        }
        column.add_child(label(shield.title.text,
            `font-size: 24pt; font-weight: bold; color: ${rgba(shield.title.color, 'white')};`));
        column.add_child(label(shield.subtitle.text,
            `font-size: 11pt; color: ${rgba(shield.subtitle.color, 'rgba(235, 235, 245, 0.6)')};`));
        const primary = new St.Button({
            label: shield.primaryButtonLabel.text, can_focus: true, x_align: Clutter.ActorAlign.CENTER,
            style: `padding: 10px 80px; border-radius: 10px; font-weight: bold; ` +
                `background-color: ${rgba(shield.primaryButtonBackgroundColor, 'rgb(10, 132, 255)')}; ` +
                `color: ${rgba(shield.primaryButtonLabel.color, 'white')};`,
        });
        primary.connect('clicked', () => onPress('primaryButtonPressed'));
        column.add_child(primary);
        if (shield.secondaryButtonLabel) {
            const secondary = new St.Button({
                label: shield.secondaryButtonLabel.text, can_focus: true, x_align: Clutter.ActorAlign.CENTER,
                style: `padding: 6px; color: ${rgba(shield.secondaryButtonLabel.color, 'rgb(10, 132, 255)')};`,
            });
            secondary.connect('clicked', () => onPress('secondaryButtonPressed'));
            column.add_child(secondary);
        }
        this.actor.add_child(column);
        // Enter and space press the button that has the keyboard focus (the first, to begin).
        this.actor.connect('key-press-event', (_actor, event) => {
            const key = event.get_key_symbol();
            if (key !== Clutter.KEY_Return && key !== Clutter.KEY_KP_Enter && key !== Clutter.KEY_space)
                return Clutter.EVENT_PROPAGATE;
            const focused = global.stage.get_key_focus();
            onPress(focused && focused !== primary && focused.label === shield.secondaryButtonLabel?.text
                ? 'secondaryButtonPressed' : 'primaryButtonPressed');
            return Clutter.EVENT_STOP;
        });
        Main.layoutManager.addTopChrome(this.actor);
        // Above the rest of the Shell's chrome too (a notification's banner).
        Main.layoutManager.uiGroup.set_child_above_sibling(this.actor, null);
        this._grab = Main.pushModal(this.actor);
        primary.grab_key_focus();
    }

    destroy() {
        if (this._grab)
            Main.popModal(this._grab);
        this._grab = null;
        Main.layoutManager.removeChrome(this.actor);
        this.actor.destroy();
    }
}

// The connection to the agent: tried again every second while there is none.
class AgentLink {
    constructor(onConnected, onMessage, onClosed) {
        this._onConnected = onConnected;
        this._onMessage = onMessage;
        this._onClosed = onClosed;
        this._cancellable = new Gio.Cancellable();
        this._connect();
    }

    _connect() {
        this._retry = 0;
        const client = new Gio.SocketClient();
        client.connect_async(Gio.UnixSocketAddress.new(agentSocket()), this._cancellable, (_client, result) => {
            try {
                this._connection = client.connect_finish(result);
            } catch (error) {
                if (!this._cancellable.is_cancelled())
                    this._retryLater();
                return;
            }
            this._output = Gio.DataOutputStream.new(this._connection.get_output_stream());
            this._input = Gio.DataInputStream.new(this._connection.get_input_stream());
            this._onConnected();
            this._read();
        });
    }

    _retryLater() {
        this._retry = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 1000, () => {
            this._connect();
            return GLib.SOURCE_REMOVE;
        });
    }

    _read() {
        this._input.read_line_async(GLib.PRIORITY_DEFAULT, this._cancellable, (_input, result) => {
            let line = null;
            try {
                [line] = this._input.read_line_finish_utf8(result);
            } catch (error) {
                line = null;
            }
            if (line === null) {
                this._close();
                if (!this._cancellable.is_cancelled())
                    this._retryLater();
                return;
            }
            try {
                this._onMessage(JSON.parse(line));
            } catch (error) {
                logError(error, 'Screenward: cannot understand the agent');
            }
            this._read();
        });
    }

    send(message) {
        if (!this._output)
            return;
        try {
            this._output.put_string(`${JSON.stringify(message)}\n`, null);
        } catch (error) {
            // The agent went away: the read ends too, and the link is tried again.
        }
    }

    _close() {
        if (this._connection)
            this._connection.close(null);
        this._connection = null;
        this._output = null;
        this._input = null;
        this._onClosed();
    }

    destroy() {
        this._cancellable.cancel();
        if (this._retry)
            GLib.source_remove(this._retry);
        if (this._connection)
            this._connection.close(null);
        this._connection = null;
        this._output = null;
    }
}

class Extension {
    enable() {
        this._cover = null;
        this._focusChanged = global.display.connect('notify::focus-window', () => this._report());
        this._idle = global.backend.get_core_idle_monitor();
        this._link = new AgentLink(() => this._report(), message => this._heard(message), () => {
            this._unwatchIdle();
            this._show('');
        });
    }

    disable() {
        global.display.disconnect(this._focusChanged);
        this._unwatchIdle();
        this._link.destroy();
        this._link = null;
        this._show('');
    }

    _heard(message) {
        if ('idle-after' in message)
            this._watchIdle(message['idle-after']);
        if ('shield' in message)
            this._show(message.shield);
    }

    // No input for `milliseconds`, then input again: the Shell's own idle monitor.
    _watchIdle(milliseconds) {
        this._unwatchIdle();
        this._idleWatch = this._idle.add_idle_watch(milliseconds, () => {
            this._link?.send({ idle: true });
            this._activeWatch = this._idle.add_user_active_watch(() => {
                this._activeWatch = 0;
                this._link?.send({ idle: false });
            });
        });
    }

    _unwatchIdle() {
        for (const watch of [this._idleWatch, this._activeWatch]) {
            if (watch)
                this._idle.remove_watch(watch);
        }
        this._idleWatch = 0;
        this._activeWatch = 0;
    }

    _report() {
        const window = global.display.focus_window;
        this._link?.send({
            focused: window ? [
                window.get_pid(), window.get_wm_class() ?? '', window.get_sandboxed_app_id() ?? '',
                window.get_title() ?? '', `${window.get_stable_sequence()}`,
            ] : [0, '', '', '', ''],
        });
    }

    // The agent's shield as JSON ({shield: a resolved shield, tint}), or '' to take it down.
    _show(json) {
        if (this._cover) {
            this._cover.destroy();
            this._cover = null;
        }
        if (!json)
            return;
        try {
            const { shield, tint } = JSON.parse(json);
            this._cover = new ShieldCover(shield, tint, action => this._link?.send({ pressed: action }));
            this._link?.send({ shown: `${global.stage.width}x${global.stage.height}` });
        } catch (error) {
            logError(error, 'Screenward: the shield could not be drawn');
            this._link?.send({ failed: `${error}` });
        }
    }
}

function init() {
    return new Extension();
}
