import CGtk
import DeviceActivity
import Foundation
import GtkBase

public struct ReportUIError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// A report drawn into a PNG file: no display needed.
public enum ReportImageFile {
    /// Writes `view` at `width` pixels (its height is what it needs). `trace` gets where
    /// each chart is, in the image's pixels.
    public static func write(_ view: ReportView, width: Int, to url: URL, trace: ((String) -> Void)? = nil) throws {
        let images = ReportImages(hasDisplay: false)
        let size = ReportLayout.size(of: view, width: Double(width), images: images)
        let height = Int32(min(32_000, size.height.rounded(.up)))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), height) else {
            throw ReportUIError("cairo could not make a \(width)×\(height) image")
        }
        defer { cairo_surface_destroy(surface) }
        guard let cairo = cairo_create(surface) else { throw ReportUIError("cairo could not draw") }
        ReportPainter(cairo: cairo, images: images, trace: trace).drawPage(view, size: (Double(width), Double(height)))
        cairo_destroy(cairo)
        guard cairo_surface_write_to_png(surface, url.path) == CAIRO_STATUS_SUCCESS else {
            throw ReportUIError("could not write the PNG \(url.path)")
        }
    }
}

/// The report window: one page per report (the built-in one has a day and a week), each
/// scrolled, drawn at the window's width. Closing it ends `run()`.
public final class ReportWindow {
    public struct Page {
        public var label: String
        public var view: ReportView
        public init(label: String, view: ReportView) {
            self.label = label
            self.view = view
        }
    }

    private let window: UnsafeMutablePointer<GtkWidget>
    private let images: ReportImages
    private let trace: ((String) -> Void)?
    /// What each page draws now (a refresh replaces it), in page order.
    private var drawn: [DrawnPage] = []

    /// One page's view and the area it is drawn in.
    private final class DrawnPage {
        var view: ReportView
        let label: String
        var area: UnsafeMutablePointer<GtkWidget>?
        var lastWidth = -1.0
        init(_ page: Page) {
            view = page.view
            label = page.label
        }
    }

    /// What a refresh runs, kept alive for GLib's timer.
    private final class Refresher {
        let action: () -> Void
        init(_ action: @escaping () -> Void) { self.action = action }
    }

    /// Starts GTK on the display (nil: $DISPLAY) and builds the window.
    public init(title: String, pages: [Page], displayName: String? = nil, trace: ((String) -> Void)? = nil) throws {
        try GtkToolkit.initialize(displayName: displayName)
        self.trace = trace
        images = ReportImages(hasDisplay: true)
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = widget(window)
        gtk_window_set_title(gtkWindow, title)
        trace?("text \(title)")
        gtk_window_set_default_size(gtkWindow, 980, 780)
        sw_window_set_wmclass(gtkWindow, "screenward-report", "Screenward-report")
        GtkSignals.onNotification(UnsafeMutableRawPointer(window), "destroy") { gtk_main_quit() }
        if pages.count == 1, let page = pages.first {
            gtk_container_add(widget(window), scrolledPage(page))
        } else {
            let notebook = gtk_notebook_new()!
            for page in pages {
                trace?("text \(page.label)")
                gtk_notebook_append_page(widget(notebook), scrolledPage(page), gtk_label_new(page.label))
            }
            gtk_container_add(widget(window), notebook)
        }
    }

    /// Draws the pages again every `seconds` with what `views` returns (in page order): the
    /// report follows the usage while it is open. A refresh that fails keeps what is drawn.
    public func refresh(every seconds: UInt32, _ views: @escaping () -> [ReportView]?) {
        guard seconds > 0 else { return }
        let refresher = Refresher { [weak self] in
            guard let self, let views = views(), views.count == drawn.count else { return }
            for (page, view) in zip(drawn, views) {
                page.view = view
                page.lastWidth = -1
                if let area = page.area { gtk_widget_queue_draw(area) }
            }
            trace?("refreshed")
        }
        _ = g_timeout_add_seconds_full(
            G_PRIORITY_DEFAULT, seconds,
            { data in
                Unmanaged<Refresher>.fromOpaque(data!).takeUnretainedValue().action()
                return 1  // G_SOURCE_CONTINUE
            }, Unmanaged.passRetained(refresher).toOpaque(),
            { data in Unmanaged<Refresher>.fromOpaque(data!).release() })
    }

    /// Shows the window and runs GTK until it is closed.
    public func run() {
        gtk_widget_show_all(window)
        gtk_main()
    }

    private func scrolledPage(_ source: Page) -> UnsafeMutablePointer<GtkWidget> {
        let scrolled = gtk_scrolled_window_new(nil, nil)!
        gtk_scrolled_window_set_policy(widget(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        let area = gtk_drawing_area_new()!
        let images = images
        let trace = trace
        let page = DrawnPage(source)
        page.area = area
        drawn.append(page)
        GtkSignals.onDraw(UnsafeMutableRawPointer(area)) { cairo in
            let width = Double(gtk_widget_get_allocated_width(area))
            let size = ReportLayout.size(of: page.view, width: max(width, 480), images: images)
            if width != page.lastWidth {
                // The page is as tall as the report at this width: the scrolled window scrolls it.
                page.lastWidth = width
                gtk_widget_set_size_request(area, -1, Int32(size.height.rounded(.up)))
            }
            var x: Int32 = 0
            var y: Int32 = 0
            if let gdkWindow = gtk_widget_get_window(area) { gdk_window_get_origin(gdkWindow, &x, &y) }
            trace?("page \(page.label) \(x) \(y) \(Int(width)) \(Int(size.height))")
            ReportPainter(cairo: cairo, images: images, origin: (Double(x), Double(y)), trace: trace).drawPage(
                page.view, size: (width, size.height))
        }
        gtk_container_add(widget(scrolled), area)
        return scrolled
    }
}

/// A widget as the GTK type a call takes (GTK's casting macros are not imported).
private func widget<Target>(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<Target> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: Target.self)
}
