import CGtk
import DeviceActivity
import Foundation
import ScreenwardCore

/// Draws a report view with cairo and Pango, on a window's drawing area or an image.
/// With `trace`, it says where each chart was drawn (for the tests, which read pixels).
final class ReportPainter {
    private let cairo: OpaquePointer
    private let images: ReportImages
    private let trace: ((String) -> Void)?
    /// Added to traced places (a window's position on the screen).
    private let origin: (x: Double, y: Double)
    /// The session's language: the painter's own texts and durations are in it (po/, context "report").
    private let language = Translations.language(fromEnvironment: ProcessInfo.processInfo.environment)
    private var texts: Translations { Translations.forLanguage(language) }

    static let ink = ReportColor(red: 0.12, green: 0.16, blue: 0.22)
    static let secondaryInk = ReportColor(red: 0.42, green: 0.45, blue: 0.5)
    static let rule = ReportColor(red: 0.9, green: 0.91, blue: 0.92)
    static let paper = ReportColor(red: 1, green: 1, blue: 1)

    init(
        cairo: OpaquePointer, images: ReportImages, origin: (x: Double, y: Double) = (0, 0), trace: ((String) -> Void)?
    ) {
        self.cairo = cairo
        self.images = images
        self.origin = origin
        self.trace = trace
    }

    /// The whole report on paper, at `size`.
    func drawPage(_ view: ReportView, size: (width: Double, height: Double)) {
        fill(ReportRect(x: 0, y: 0, width: size.width, height: size.height), Self.paper)
        let margin = ReportLayout.margin
        draw(
            view, in: ReportRect(x: margin, y: margin, width: size.width - 2 * margin, height: size.height - 2 * margin)
        )
    }

    func draw(_ view: ReportView, in rect: ReportRect) {
        switch view {
        case .title(let text):
            write(text, at: rect.x, rect.y + 4, font: "Sans Bold 17", color: Self.ink, width: rect.width)
        case .text(let text):
            write(text, at: rect.x, rect.y + 3, font: "Sans 10.5", color: Self.secondaryInk, width: rect.width)
        case .pieChart(let chart): drawPie(chart, in: rect)
        case .barChart(let chart): drawBars(chart, in: rect)
        case .table(let table): drawTable(table, in: rect)
        case .image(let png): drawImage(png, in: rect)
        case .column(let children):
            var y = rect.y
            for child in children {
                let height = ReportLayout.height(of: child, width: rect.width, images: images)
                draw(child, in: ReportRect(x: rect.x, y: y, width: rect.width, height: height))
                y += height + ReportLayout.spacing
            }
        case .row(let children):
            let width = ReportLayout.columnWidth(rect.width, children.count)
            for (index, child) in children.enumerated() {
                let x = rect.x + Double(index) * (width + ReportLayout.spacing)
                draw(child, in: ReportRect(x: x, y: rect.y, width: width, height: rect.height))
            }
        }
    }

    // MARK: Charts

    private func drawPie(_ chart: PieChart, in rect: ReportRect) {
        var top = rect.y
        if let title = chart.title {
            write(title, at: rect.x, top, font: "Sans Bold 11.5", color: Self.ink, width: rect.width)
            top += 26
        }
        let slices = chart.slices.filter { $0.value > 0 }
        let total = slices.reduce(0) { $0 + $1.value }
        let diameter = min(rect.height - (top - rect.y) - 8, rect.width * 0.5)
        let radius = diameter / 2
        let center = (x: rect.x + radius + 4, y: top + radius + 4)
        trace?("pie \(Int(origin.x + center.x)) \(Int(origin.y + center.y)) \(Int(radius))")
        guard total > 0 else {
            setColor(Self.rule)
            cairo_set_line_width(cairo, 2)
            // A fresh path: the title's text left a current point, which the arc would join.
            cairo_new_path(cairo)
            cairo_arc(cairo, center.x, center.y, radius - 1, 0, 2 * .pi)
            cairo_stroke(cairo)
            write(
                texts("No use recorded", context: "report"), at: center.x - radius + 20, center.y - 8, font: "Sans 10",
                color: Self.secondaryInk,
                width: diameter - 40)
            return
        }
        var angle = -Double.pi / 2
        for (index, slice) in slices.enumerated() {
            let sweep = 2 * .pi * slice.value / total
            setColor(slice.color ?? ReportPalette.sequence[index % ReportPalette.sequence.count])
            cairo_move_to(cairo, center.x, center.y)
            cairo_arc(cairo, center.x, center.y, radius, angle, angle + sweep)
            cairo_close_path(cairo)
            cairo_fill(cairo)
            angle += sweep
        }
        // The legend, beside the pie: as many slices as fit, the rest summed up.
        let legendX = center.x + radius + 20
        let legendWidth = rect.x + rect.width - legendX
        let lineHeight = 22.0
        let fitting = max(1, Int((rect.y + rect.height - top) / lineHeight))
        for (index, slice) in slices.enumerated().prefix(fitting) {
            let y = top + 4 + Double(index) * lineHeight
            if index == fitting - 1, slices.count > fitting {
                let rest = slices.dropFirst(fitting - 1).reduce(0) { $0 + $1.value }
                write(
                    texts(
                        "{count} more: {value}", context: "report",
                        ["count": "\(slices.count - fitting + 1)", "value": valueText(rest, chart.unit)]),
                    at: legendX, y,
                    font: "Sans 9.5", color: Self.secondaryInk, width: legendWidth)
                break
            }
            fill(
                ReportRect(x: legendX, y: y + 3, width: 11, height: 11),
                slice.color ?? ReportPalette.sequence[index % ReportPalette.sequence.count])
            let share = Int((100 * slice.value / total).rounded())
            write(
                "\(slice.label)  \(valueText(slice.value, chart.unit)) · \(share)%", at: legendX + 17, y,
                font: "Sans 9.5", color: Self.ink, width: legendWidth - 17)
        }
    }

    private func drawBars(_ chart: BarChart, in rect: ReportRect) {
        var top = rect.y
        if let title = chart.title {
            write(title, at: rect.x, top, font: "Sans Bold 11.5", color: Self.ink, width: rect.width)
            top += 26
        }
        let axisWidth = 52.0
        let labelHeight = 20.0
        let plot = ReportRect(
            x: rect.x + axisWidth, y: top + 6, width: rect.width - axisWidth,
            height: rect.y + rect.height - top - labelHeight - 10)
        trace?("bars \(Int(origin.x + plot.x)) \(Int(origin.y + plot.y)) \(Int(plot.width)) \(Int(plot.height))")
        let highest = chart.bars.map(\.total).max() ?? 0
        let scale = highest > 0 ? highest : 1
        // Three gridlines, labelled.
        cairo_set_line_width(cairo, 1)
        for step in 0...3 {
            let value = scale * Double(step) / 3
            let y = (plot.y + plot.height - plot.height * Double(step) / 3).rounded() + 0.5
            setColor(Self.rule)
            cairo_move_to(cairo, plot.x, y)
            cairo_line_to(cairo, plot.x + plot.width, y)
            cairo_stroke(cairo)
            if highest > 0 || step == 0 {
                write(
                    valueText(value, chart.unit), at: rect.x, y - 8, font: "Sans 8", color: Self.secondaryInk,
                    width: axisWidth - 6)
            }
        }
        guard !chart.bars.isEmpty else { return }
        let slot = plot.width / Double(chart.bars.count)
        let barWidth = max(1, min(slot * 0.7, 56))
        // Labels every few bars when they would not fit side by side.
        let labelEvery = max(1, Int((34 / slot).rounded(.up)))
        for (index, bar) in chart.bars.enumerated() {
            let x = plot.x + Double(index) * slot + (slot - barWidth) / 2
            var y = plot.y + plot.height
            for (partIndex, part) in bar.parts.enumerated() where part.value > 0 {
                let height = plot.height * part.value / scale
                fill(
                    ReportRect(x: x, y: y - height, width: barWidth, height: height),
                    part.color ?? ReportPalette.sequence[partIndex % ReportPalette.sequence.count])
                y -= height
            }
            if index % labelEvery == 0 {
                write(
                    bar.label, at: plot.x + Double(index) * slot, plot.y + plot.height + 4, font: "Sans 8",
                    color: Self.secondaryInk, width: max(slot * Double(labelEvery), 20))
            }
        }
    }

    private func drawTable(_ table: ReportTable, in rect: ReportRect) {
        var y = rect.y
        if let title = table.title {
            write(title, at: rect.x, y, font: "Sans Bold 11.5", color: Self.ink, width: rect.width)
            y += ReportLayout.tableTitleHeight
        }
        trace?(
            """
            table \(Int(origin.x + rect.x)) \(Int(origin.y + y)) \(Int(rect.width)) \
            \(Int(ReportLayout.tableRowHeight * Double(table.rows.count + 1)))
            """
        )
        let count = max(1, table.columns.count)
        let first = count == 1 ? rect.width : rect.width * 0.4
        let other = count == 1 ? 0 : (rect.width - first) / Double(count - 1)
        func columnX(_ index: Int) -> Double { index == 0 ? rect.x : rect.x + first + Double(index - 1) * other }
        for (index, column) in table.columns.enumerated() {
            write(
                column, at: columnX(index) + (index == 0 ? 34 : 0), y + 6, font: "Sans Bold 9.5",
                color: Self.secondaryInk, width: index == 0 ? first - 34 : other)
        }
        y += ReportLayout.tableRowHeight
        for (rowIndex, row) in table.rows.enumerated() {
            if rowIndex % 2 == 0 {
                fill(
                    ReportRect(x: rect.x, y: y, width: rect.width, height: ReportLayout.tableRowHeight),
                    ReportColor(red: 0.97, green: 0.975, blue: 0.98))
            }
            if let swatch = row.swatch {
                fill(ReportRect(x: rect.x, y: y + 4, width: 4, height: ReportLayout.tableRowHeight - 8), swatch)
            }
            if let name = row.icon, let icon = images.icon(name, size: 22) {
                gdk_cairo_set_source_pixbuf(cairo, icon, rect.x + 8, y + 4)
                cairo_paint(cairo)
            }
            for (index, cell) in row.cells.enumerated().prefix(count) {
                let text: String =
                    switch cell {
                    case .text(let text): text
                    case .duration(let seconds): ReportText.duration(seconds, language: language)
                    case .number(let number):
                        number == number.rounded() ? String(Int(number)) : String(format: "%.1f", number)
                    }
                let x = columnX(index) + (index == 0 ? 34 : 0)
                write(text, at: x, y + 7, font: "Sans 9.5", color: Self.ink, width: index == 0 ? first - 40 : other - 6)
            }
            y += ReportLayout.tableRowHeight
        }
    }

    private func drawImage(_ png: Data, in rect: ReportRect) {
        guard let picture = images.picture(png) else {
            write(
                texts("(the extension's image could not be read)", context: "report"), at: rect.x, rect.y + 3,
                font: "Sans Italic 10",
                color: Self.secondaryInk, width: rect.width)
            return
        }
        let width = Double(gdk_pixbuf_get_width(picture))
        let scale = width > rect.width ? rect.width / width : 1
        cairo_save(cairo)
        cairo_translate(cairo, rect.x, rect.y)
        cairo_scale(cairo, scale, scale)
        gdk_cairo_set_source_pixbuf(cairo, picture, 0, 0)
        cairo_paint(cairo)
        cairo_restore(cairo)
    }

    // MARK: Pen and ink

    private func valueText(_ value: Double, _ unit: ReportValueUnit) -> String {
        switch unit {
        case .duration: ReportText.duration(value, language: language)
        case .count: value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
        }
    }

    private func setColor(_ color: ReportColor) {
        cairo_set_source_rgb(cairo, color.red, color.green, color.blue)
    }

    private func fill(_ rect: ReportRect, _ color: ReportColor) {
        setColor(color)
        cairo_rectangle(cairo, rect.x, rect.y, rect.width, rect.height)
        cairo_fill(cairo)
    }

    /// One line of text, cut with an ellipsis at `width`.
    private func write(_ text: String, at x: Double, _ y: Double, font: String, color: ReportColor, width: Double) {
        guard width > 4, let layout = pango_cairo_create_layout(cairo) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        // Every text a person sees, for the tests that check each went through the translations.
        trace?("text \(text.replacingOccurrences(of: "\n", with: " "))")
        let description = pango_font_description_from_string(font)
        defer { pango_font_description_free(description) }
        pango_layout_set_font_description(layout, description)
        pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        pango_layout_set_single_paragraph_mode(layout, 1)
        pango_layout_set_text(layout, text, -1)
        setColor(color)
        cairo_move_to(cairo, x, y)
        pango_cairo_show_layout(cairo, layout)
    }
}
