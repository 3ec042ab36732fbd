@_spi(Screenward) import ManagedSettings

/// Whether a settings store after a change still restricts everything it restricted
/// before: in a managed account an app may tighten its stores on its own, and needs a
/// guardian to loosen them. A comparison it cannot make counts as loosening (a managed
/// account fails closed).
@_spi(Screenward) public enum StoreStrictness {
    /// The settings of `old` that `new` restricts less, by their API names
    /// (`shield.applications`, …); empty when `new` is at least as strict.
    public static func loosened(from old: StoreContents, to new: StoreContents) -> [String] {
        var loosened: [String] = []
        if !covers(new.shield.applications, old.shield.applications) { loosened.append("shield.applications") }
        if !covers(new.shield.applicationCategories, old.shield.applicationCategories) {
            loosened.append("shield.applicationCategories")
        }
        if !covers(new.shield.webDomains, old.shield.webDomains) { loosened.append("shield.webDomains") }
        if !covers(new.shield.webDomainCategories, old.shield.webDomainCategories) {
            loosened.append("shield.webDomainCategories")
        }
        if !covers(new.application.blockedApplications, old.application.blockedApplications) {
            loosened.append("application.blockedApplications")
        }
        if old.application.denyAppInstallation == true, new.application.denyAppInstallation != true {
            loosened.append("application.denyAppInstallation")
        }
        if !covers(new.webContent.blockedByFilter, old.webContent.blockedByFilter) {
            loosened.append("webContent.blockedByFilter")
        }
        return loosened
    }

    /// Whether the set `new` holds every member of `old` (nil holds nothing).
    static func covers<Member>(_ new: Set<Member>?, _ old: Set<Member>?) -> Bool {
        (old ?? []).isSubset(of: new ?? [])
    }

    /// Whether the category policy `new` shields every member `old` shields.
    static func covers<Child>(
        _ new: ShieldSettings.ActivityCategoryPolicy<Child>?, _ old: ShieldSettings.ActivityCategoryPolicy<Child>?
    ) -> Bool {
        switch (old ?? .none, new ?? .none) {
        case (.none, _): true
        case (_, .none): false
        case (.all(let oldExcept), .all(let newExcept)): newExcept.isSubset(of: oldExcept)
        case (.all, .specific): false
        case (.specific(_, let oldExcept), .all(let newExcept)): newExcept.isSubset(of: oldExcept)
        case (.specific(let oldCategories, let oldExcept), .specific(let newCategories, let newExcept)):
            oldCategories.isSubset(of: newCategories) && newExcept.isSubset(of: oldExcept)
        }
    }

    /// Whether the web filter `new` blocks every website `old` blocks. The `.auto` lists are
    /// the system's, the same before and after; what they hold is not known here.
    static func covers(
        _ new: WebContentSettings.FilterPolicy?, _ old: WebContentSettings.FilterPolicy?
    ) -> Bool {
        switch (old ?? .none, new ?? .none) {
        case (.none, _): true
        case (_, .none): false
        case (.auto(let oldAdded, let oldSpared), .auto(let newAdded, let newSpared)):
            oldAdded.isSubset(of: newAdded) && newSpared.isSubset(of: oldSpared)
        case (.auto(_, let oldSpared), .all(let newSpared)): newSpared.isSubset(of: oldSpared)
        case (.auto, .specific): false
        case (.specific(let blocked), .specific(let newBlocked)): blocked.isSubset(of: newBlocked)
        case (.specific(let blocked), .auto(let added, let spared)):
            blocked.isSubset(of: added) && spared.isDisjoint(with: blocked)
        case (.specific(let blocked), .all(let spared)): spared.isDisjoint(with: blocked)
        case (.all(let oldSpared), .all(let newSpared)): newSpared.isSubset(of: oldSpared)
        case (.all, .auto), (.all, .specific): false
        }
    }
}
