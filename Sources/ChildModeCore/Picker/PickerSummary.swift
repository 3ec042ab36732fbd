import ScreenwardBasics

/// The line under the picker's list that says what is chosen so far.
public enum PickerSummary {
    /// How many names the line spells out before "and N more".
    static let namesShown = 4

    /// In `texts`' language (po/, context "picker").
    public static func text(of choice: PickerChoice, in catalog: PickerCatalog, texts: Translations = .english)
        -> String
    {
        let categories = catalog.groups.filter { choice.isTicked(category: $0.categoryID) }.map {
            texts("{category} (all)", context: "picker", ["category": $0.title])
        }
        let applications = catalog.groups.flatMap(\.applications)
            .filter { choice.isTicked($0) && !choice.isCoveredByCategory($0) }.map(\.name)
        let websites = catalog.websites.filter { choice.isTicked($0) && !choice.isCoveredByCategory($0) }.map(\.name)
        let names = categories + applications + websites
        guard !names.isEmpty else { return texts("Nothing chosen yet.", context: "picker") }
        let shown = names.prefix(namesShown).joined(separator: ", ")
        guard names.count > namesShown else { return texts("Chosen: {names}", context: "picker", ["names": shown]) }
        return texts(
            "Chosen: {names} and {count} more", context: "picker",
            ["names": shown, "count": "\(names.count - namesShown)"])
    }
}
