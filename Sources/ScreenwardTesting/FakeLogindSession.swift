import CGLib
import Foundation
import GLibRuntime
import X11Session

extension FakeLogindService {
    /// One session of the fake logind, with the properties logind's Session object has.
    public struct Session: Sendable, Equatable {
        public var id: String
        public var uid: UInt32
        public var name: String
        /// `x11`, `wayland`, `tty`, `mir`, `web` or `unspecified`.
        public var type = "x11"
        public var display = ":0"
        public var active = true
        /// `online`, `active` or `closing`.
        public var state = "active"
        public var remote = false
        public var leader: UInt32 = 1
        /// `user`, `greeter`, `lock-screen`, `background`…
        public var sessionClass = "user"
        /// The seat's id; empty for none (served as `("", "/")`, as logind does).
        public var seat = "seat0"
        public var lockedHint = false
        /// The PAM service that opened it (`lightdm`, `login`, `sshd`, `su`…).
        public var service = "lightdm"
        /// A text login's terminal (`tty2`, `pts/3`), else empty.
        public var tty = ""
        /// Serves User, Active, Seat and LockedHint with the wrong types (`u`, `s`, `s`,
        /// `s`), and its PropertiesChanged carry the same wrong types.
        public var malformed = false

        public init(
            id: String, uid: UInt32 = getuid(), name: String = ProcessInfo.processInfo.environment["USER"] ?? "user"
        ) {
            self.id = id
            self.uid = uid
            self.name = name
        }

        /// A session from control fields such as `uid=1001 type=x11 active=no`.
        public init(id: String, fields: [String]) throws {
            self.init(id: id)
            _ = try apply(fields)
        }

        public var objectPath: String { "/org/freedesktop/login1/session/" + FakeLogindService.escapePathElement(id) }

        /// Applies `key=value` fields (uid, name, type, display, active, state, remote,
        /// leader, class, seat, locked, service, tty, malformed; booleans as yes/no) and returns the
        /// names of the D-Bus properties that changed.
        public mutating func apply(_ fields: [String]) throws -> [String] {
            var changed: [String] = []
            for field in fields {
                guard let equals = field.firstIndex(of: "=") else {
                    throw FakeLogindError("\"\(field)\" is not key=value")
                }
                let key = String(field[..<equals])
                let value = String(field[field.index(after: equals)...])
                let before = self
                switch key {
                case "uid": uid = try Self.number(value, key)
                case "name": name = value
                case "type": type = value
                case "display": display = value
                case "active": active = try Self.flag(value, key)
                case "state": state = value
                case "remote": remote = try Self.flag(value, key)
                case "leader": leader = try Self.number(value, key)
                case "class": sessionClass = value
                case "seat": seat = value
                case "locked": lockedHint = try Self.flag(value, key)
                case "service": service = value
                case "tty": tty = value
                case "malformed": malformed = try Self.flag(value, key)
                default: throw FakeLogindError("unknown session field \"\(key)\"")
                }
                if before != self, let property = Self.propertyNames[key], !changed.contains(property) {
                    changed.append(property)
                }
            }
            return changed
        }

        /// Control keys and the properties they set (malformed changes no property).
        private static let propertyNames = [
            "uid": "User", "name": "Name", "type": "Type", "display": "Display", "active": "Active",
            "state": "State", "remote": "Remote", "leader": "Leader", "class": "Class", "seat": "Seat",
            "locked": "LockedHint", "service": "Service", "tty": "TTY",
        ]

        private static func flag(_ value: String, _ key: String) throws -> Bool {
            switch value {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: throw FakeLogindError("\(key)=\(value): not yes or no")
            }
        }

        private static func number(_ value: String, _ key: String) throws -> UInt32 {
            guard let number = UInt32(value) else { throw FakeLogindError("\(key)=\(value): not a number") }
            return number
        }

        /// The property's value as logind serves it (a new floating GVariant), with the
        /// wrong type where the session is malformed; nil for a property it does not have.
        func value(of property: String) -> OpaquePointer? {
            let userPath = "/org/freedesktop/login1/user/_" + String(uid)
            let seatPath =
                seat.isEmpty ? "/" : "/org/freedesktop/login1/seat/" + FakeLogindService.escapePathElement(seat)
            switch property {
            case "Id": return g_variant_new_string(id)
            case "User":
                return malformed
                    ? g_variant_new_uint32(uid)
                    : VariantBuilder.tuple([g_variant_new_uint32(uid), g_variant_new_object_path(userPath)])
            case "Name": return g_variant_new_string(name)
            case "Type": return g_variant_new_string(type)
            case "Display": return g_variant_new_string(display)
            case "Active":
                return malformed ? g_variant_new_string(active ? "yes" : "no") : g_variant_new_boolean(active ? 1 : 0)
            case "State": return g_variant_new_string(state)
            case "Remote": return g_variant_new_boolean(remote ? 1 : 0)
            case "Leader": return g_variant_new_uint32(leader)
            case "Class": return g_variant_new_string(sessionClass)
            case "Seat":
                return malformed
                    ? g_variant_new_string(seat)
                    : VariantBuilder.tuple([g_variant_new_string(seat), g_variant_new_object_path(seatPath)])
            case "Service": return g_variant_new_string(service)
            case "TTY": return g_variant_new_string(tty)
            case "LockedHint":
                return malformed
                    ? g_variant_new_string(lockedHint ? "yes" : "no") : g_variant_new_boolean(lockedHint ? 1 : 0)
            default: return nil
            }
        }
    }

    /// logind's object path element: bytes outside [A-Za-z0-9], and a leading
    /// digit, become _xx (sd_bus_path_encode).
    static func escapePathElement(_ text: String) -> String {
        guard !text.isEmpty else { return "_" }
        var result = ""
        for (index, byte) in text.utf8.enumerated() {
            let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            let isDigit = byte >= 48 && byte <= 57
            if isLetter || (isDigit && index > 0) {
                result.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                let hex = String(byte, radix: 16)
                result += "_" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// The objects' interfaces. `malformed` declares the types a malformed fake serves:
    /// GetSessionByPID answers a string, ListSessions an array of strings, and the
    /// session's User, Active, Seat and LockedHint have the wrong types. (GDBus checks
    /// the values an object serves against its declaration, so a malformed session is
    /// registered with this declaration.)
    static func introspection(malformed: Bool) -> String {
        """
        <node>
          <interface name="org.freedesktop.login1.Manager">
            <method name="GetSession">
              <arg name="session_id" type="s" direction="in"/>
              <arg name="object_path" type="o" direction="out"/>
            </method>
            <method name="GetSessionByPID">
              <arg name="pid" type="u" direction="in"/>
              <arg name="object_path" type="\(malformed ? "s" : "o")" direction="out"/>
            </method>
            <method name="ListSessions">
              <arg name="sessions" type="\(malformed ? "as" : "a(susso)")" direction="out"/>
            </method>
            <method name="LockSession"><arg name="session_id" type="s" direction="in"/></method>
            <method name="TerminateSession"><arg name="session_id" type="s" direction="in"/></method>
            <signal name="SessionNew"><arg name="session_id" type="s"/><arg name="object_path" type="o"/></signal>
            <signal name="SessionRemoved"><arg name="session_id" type="s"/><arg name="object_path" type="o"/></signal>
            <signal name="PrepareForSleep"><arg name="start" type="b"/></signal>
          </interface>
          <interface name="org.freedesktop.login1.Session">
            <property name="Id" type="s" access="read"/>
            <property name="User" type="\(malformed ? "u" : "(uo)")" access="read"/>
            <property name="Name" type="s" access="read"/>
            <property name="Type" type="s" access="read"/>
            <property name="Display" type="s" access="read"/>
            <property name="Active" type="\(malformed ? "s" : "b")" access="read"/>
            <property name="State" type="s" access="read"/>
            <property name="Remote" type="b" access="read"/>
            <property name="Leader" type="u" access="read"/>
            <property name="Class" type="s" access="read"/>
            <property name="Seat" type="\(malformed ? "s" : "(so)")" access="read"/>
            <property name="LockedHint" type="\(malformed ? "s" : "b")" access="read"/>
            <property name="Service" type="s" access="read"/>
            <property name="TTY" type="s" access="read"/>
            <method name="SetLockedHint"><arg name="locked" type="b" direction="in"/></method>
            <method name="SetIdleHint"><arg name="idle" type="b" direction="in"/></method>
            <signal name="Lock"/>
            <signal name="Unlock"/>
          </interface>
        </node>
        """
    }
}
