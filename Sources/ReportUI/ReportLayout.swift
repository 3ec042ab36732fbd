import DeviceActivity

/// How much room each part of a report takes at a given width: the renderer lays a
/// report out from the top, one part under the other (or side by side in a row).
enum ReportLayout {
    static let margin = 24.0
    static let spacing = 14.0
    static let titleHeight = 40.0
    static let textHeight = 26.0
    static let chartHeight = 300.0
    static let tableTitleHeight = 30.0
    static let tableRowHeight = 30.0

    static func height(of view: ReportView, width: Double, images: ReportImages) -> Double {
        switch view {
        case .title: titleHeight
        case .text: textHeight
        case .pieChart, .barChart: chartHeight
        case .table(let table):
            (table.title == nil ? 0 : tableTitleHeight) + tableRowHeight * Double(table.rows.count + 1) + 8
        case .image(let png):
            images.size(of: png).map { size in size.width > width ? size.height * width / size.width : size.height }
                ?? textHeight
        case .column(let children):
            children.reduce(0) { $0 + height(of: $1, width: width, images: images) } + spacing
                * Double(max(0, children.count - 1))
        case .row(let children):
            children.map { height(of: $0, width: columnWidth(width, children.count), images: images) }.max() ?? 0
        }
    }

    static func columnWidth(_ width: Double, _ count: Int) -> Double {
        guard count > 0 else { return width }
        return (width - spacing * Double(count - 1)) / Double(count)
    }

    /// The whole report's size at `width`, margins included.
    static func size(of view: ReportView, width: Double, images: ReportImages) -> (width: Double, height: Double) {
        (width, height(of: view, width: width - 2 * margin, images: images) + 2 * margin)
    }
}

/// A rectangle in the drawing's coordinates.
struct ReportRect {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
}
