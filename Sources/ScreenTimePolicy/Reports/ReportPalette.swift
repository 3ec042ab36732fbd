import DeviceActivity

/// The colours of reports: one per activity category (the same in every chart, so a
/// category is recognised at a glance), and a palette for charts that name none.
public enum ReportPalette {
    /// Categories of data/categories.json, in colours far enough apart to tell apart
    /// in a pie of a few pixels (and by the tests, pixel by pixel).
    static let categoryColors: [String: String] = [
        "Social": "#3B82F6", "Game": "#EF4444", "AudioVideo": "#A855F7", "Office": "#10B981",
        "Development": "#F59E0B", "Education": "#14B8A6", "Graphics": "#EC4899", "Network": "#6366F1",
        "Utility": "#84CC16", "Settings": "#64748B", "System": "#78716C", "Science": "#0EA5E9",
        "Other": "#9CA3AF",
    ]

    /// For slices and bars that name no colour, in order.
    public static let sequence: [ReportColor] = [
        "#3B82F6", "#EF4444", "#10B981", "#F59E0B", "#A855F7", "#14B8A6", "#EC4899", "#6366F1", "#84CC16", "#9CA3AF",
    ]
    .compactMap(ReportColor.init(hex:))

    public static func color(forCategory id: String) -> ReportColor {
        if let hex = categoryColors[id], let color = ReportColor(hex: hex) { return color }
        // A category a distribution added: a stable pick from the sequence.
        let index = id.unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF } % sequence.count
        return sequence[index]
    }
}
