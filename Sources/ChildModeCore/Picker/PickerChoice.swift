@_spi(Screenward) import FamilyControls

/// What is ticked in the picker, as ids: applications, whole categories, and websites
/// (registrable domains).
///
/// A ticked category covers its applications and the websites the table puts in it: they
/// show ticked and cannot be unticked one by one, and the selection names the category,
/// not each of them (the category's token covers applications installed later too).
/// Unticking the category gives back their own ticks.
public struct PickerChoice: Hashable, Sendable {
    public private(set) var applications: Set<String>
    public private(set) var categories: Set<String>
    public private(set) var webDomains: Set<String>
    public var includeEntireCategory: Bool

    @_spi(Screenward) public init(_ request: SelectionRequest = SelectionRequest()) {
        applications = Set(request.applications)
        categories = Set(request.categories)
        webDomains = Set(request.webDomains)
        includeEntireCategory = request.includeEntireCategory
    }

    public func isTicked(_ application: PickerApplication) -> Bool {
        categories.contains(application.categoryID) || applications.contains(application.id)
    }

    /// Whether the application's tick comes from its category (its own box is then locked).
    public func isCoveredByCategory(_ application: PickerApplication) -> Bool {
        categories.contains(application.categoryID)
    }

    public func isTicked(category id: String) -> Bool { categories.contains(id) }

    public func isTicked(_ website: PickerWebsite) -> Bool {
        isCoveredByCategory(website) || webDomains.contains(website.domain)
    }

    public func isCoveredByCategory(_ website: PickerWebsite) -> Bool {
        website.categoryID.map(categories.contains) ?? false
    }

    public mutating func set(_ website: PickerWebsite, ticked: Bool) {
        guard !isCoveredByCategory(website) else { return }
        if ticked { webDomains.insert(website.domain) } else { webDomains.remove(website.domain) }
    }

    public mutating func set(_ application: PickerApplication, ticked: Bool) {
        guard !isCoveredByCategory(application) else { return }
        if ticked { applications.insert(application.id) } else { applications.remove(application.id) }
    }

    public mutating func set(category id: String, ticked: Bool) {
        if ticked { categories.insert(id) } else { categories.remove(id) }
    }

    /// The ids to issue tokens for, sorted; applications and websites a ticked category
    /// covers are left out (the category stands for them), unless `catalog` does not know them.
    @_spi(Screenward) public func request(in catalog: PickerCatalog) -> SelectionRequest {
        let applications = self.applications.filter { id in
            guard let application = catalog.application(id: id) else { return true }
            return !categories.contains(application.categoryID)
        }
        let webDomains = self.webDomains.filter { domain in
            guard let website = catalog.website(domain: domain) else { return true }
            return !isCoveredByCategory(website)
        }
        return SelectionRequest(
            applications: applications.sorted(), categories: categories.sorted(), webDomains: webDomains.sorted(),
            includeEntireCategory: includeEntireCategory)
    }

    public var isEmpty: Bool { applications.isEmpty && categories.isEmpty && webDomains.isEmpty }
}
