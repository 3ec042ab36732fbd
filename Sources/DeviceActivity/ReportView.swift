import Foundation

/// What a report extension returns for Screenward to draw: charts, tables and text
/// laid out in columns and rows, or an image it drew itself. (Apple's extension returns
/// a SwiftUI view; this is its declarative stand-in, drawn by Screenward's renderer in
/// a window or a PNG file.)
public indirect enum ReportView: Hashable, Codable, Sendable {
    case title(String)
    case text(String)
    case pieChart(PieChart)
    case barChart(BarChart)
    case table(ReportTable)
    /// A PNG the extension drew (at most 4096 × 4096 pixels), shown at its size.
    case image(png: Data)
    /// Views one under the other.
    case column([ReportView])
    /// Views side by side, sharing the width equally.
    case row([ReportView])
}

/// A colour; components from 0 to 1.
public struct ReportColor: Hashable, Codable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#RRGGBB`.
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self.init(
            red: Double(value >> 16 & 0xFF) / 255, green: Double(value >> 8 & 0xFF) / 255,
            blue: Double(value & 0xFF) / 255)
    }

    public var hex: String {
        func byte(_ component: Double) -> Int { Int((min(max(component, 0), 1) * 255).rounded()) }
        return String(format: "#%02X%02X%02X", byte(red), byte(green), byte(blue))
    }
}

/// How a chart's values read: durations in seconds, or plain numbers.
public enum ReportValueUnit: String, Hashable, Codable, Sendable {
    case duration, count
}

public struct PieChart: Hashable, Codable, Sendable {
    public struct Slice: Hashable, Codable, Sendable {
        public var label: String
        public var value: Double
        /// Nil: the renderer's palette, in order.
        public var color: ReportColor?

        public init(label: String, value: Double, color: ReportColor? = nil) {
            self.label = label
            self.value = value
            self.color = color
        }
    }

    public var title: String?
    public var slices: [Slice]
    public var unit: ReportValueUnit

    public init(title: String? = nil, slices: [Slice], unit: ReportValueUnit = .duration) {
        self.title = title
        self.slices = slices
        self.unit = unit
    }
}

public struct BarChart: Hashable, Codable, Sendable {
    /// One part of a stacked bar.
    public struct Part: Hashable, Codable, Sendable {
        public var value: Double
        public var color: ReportColor?
        public init(value: Double, color: ReportColor? = nil) {
            self.value = value
            self.color = color
        }
    }

    public struct Bar: Hashable, Codable, Sendable {
        public var label: String
        public var parts: [Part]
        public init(label: String, parts: [Part]) {
            self.label = label
            self.parts = parts
        }
        public init(label: String, value: Double, color: ReportColor? = nil) {
            self.init(label: label, parts: [Part(value: value, color: color)])
        }
        public var total: Double { parts.reduce(0) { $0 + $1.value } }
    }

    public var title: String?
    public var bars: [Bar]
    public var unit: ReportValueUnit

    public init(title: String? = nil, bars: [Bar], unit: ReportValueUnit = .duration) {
        self.title = title
        self.bars = bars
        self.unit = unit
    }
}

public struct ReportTable: Hashable, Codable, Sendable {
    public enum Cell: Hashable, Codable, Sendable {
        case text(String)
        case duration(TimeInterval)
        case number(Double)
    }

    public struct Row: Hashable, Codable, Sendable {
        /// A themed icon name (an application's, from its desktop entry).
        public var icon: String?
        /// A small square of this colour before the first cell (a category's).
        public var swatch: ReportColor?
        public var cells: [Cell]
        public init(icon: String? = nil, swatch: ReportColor? = nil, cells: [Cell]) {
            self.icon = icon
            self.swatch = swatch
            self.cells = cells
        }
    }

    public var title: String?
    public var columns: [String]
    public var rows: [Row]

    public init(title: String? = nil, columns: [String], rows: [Row]) {
        self.title = title
        self.columns = columns
        self.rows = rows
    }
}

/// What a report scene's content returns: a view to draw.
public protocol ReportContent {
    var body: ReportView { get }
}

extension ReportView: ReportContent {
    public var body: ReportView { self }
}
