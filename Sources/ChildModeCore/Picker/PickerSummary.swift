/// The line under the picker's list that says what is chosen so far.
public enum PickerSummary {
    /// How many names the line spells out before "and N more".
    static let namesShown = 4

    public static func text(of choice: PickerChoice, in catalog: PickerCatalog) -> String {
        let categories = catalog.groups.filter { choice.isTicked(category: $0.categoryID) }.map { "\($0.title) (all)" }
        let applications = catalog.groups.flatMap(\.applications)
            .filter { choice.isTicked($0) && !choice.isCoveredByCategory($0) }.map(\.name)
        let websites = catalog.websites.filter { choice.isTicked($0) && !choice.isCoveredByCategory($0) }.map(\.name)
        let names = categories + applications + websites
        guard !names.isEmpty else { return "Nothing chosen yet." }
        let shown = names.prefix(namesShown).joined(separator: ", ")
        return names.count > namesShown ? "Chosen: \(shown) and \(names.count - namesShown) more" : "Chosen: \(shown)"
    }
}
