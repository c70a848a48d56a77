import Foundation
import PackagePlugin

#if canImport(Glibc)
import Glibc
#endif

// The one way the three command plugins run the tool (a plugin cannot link a library, so each
// plugin's folder holds a link to this file): in the package's folder, with `CASSETTE_PLUGIN`
// naming the plugin, so the tool refuses what its permissions do not cover and names the plugin
// that runs it (`PluginAccess` in the tool). The tool's exit status is the plugin's; SwiftPM
// prints it ("Plugin ended with exit code 3") and itself exits 1 for any failure
// (swiftlang/swift-package-manager#7380).
//
// The tool is the `cassette` product as `swift build` builds it, asked of SwiftPM here, not a
// plugin dependency: SwiftPM builds a plugin's dependencies in a configuration of their own, a
// second copy of every module (33 s on two cores after `swift build --build-tests`, against 10 s
// this way, which reuses the modules the tests built), and `swift run cassette` then runs the
// same executable without building it again.
//
// What the tool prints reaches the user as it prints it: SwiftPM reads a plugin's output through
// a pipe and prints it line by line with its own `print` — block-buffered when its standard
// output is a pipe, so `serve`'s "listening on" line reached a script only when the server
// stopped — and drops a last line without a newline (a body printed by `play`). Where the plugin
// can open what `swift package` itself writes to (Linux: `/proc/PARENT/fd/1` or `2`, when it is
// a terminal, a pipe or a socket), the tool writes there directly, unchanged. Elsewhere (a
// sandboxed plugin on macOS, a stream redirected to a file) that stream goes through SwiftPM,
// with a newline added after a last line that has none, so that nothing is dropped.
enum ToolRun {
    static func run(verb: String, context: PluginContext, packageManager: PackageManager, arguments: [String]) throws -> Never {
        let build = try packageManager.build(.product("cassette"), parameters: .init(configuration: .debug, logging: .concise))
        guard build.succeeded else {
            FileHandle.standardError.write(Data("error: building the cassette tool failed:\n\(build.logText)\n".utf8))
            exit(1)
        }
        guard let tool = build.builtArtifacts.first(where: { $0.kind == .executable }) else {
            let message = "error: SwiftPM built the cassette product but named no executable; run swift run cassette instead\n"
            FileHandle.standardError.write(Data(message.utf8))
            exit(1)
        }
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        // The tool ends with this process however it ends (Termination.endWithParent in the tool).
        let plugin = ["CASSETTE_PLUGIN": verb, "CASSETTE_PLUGIN_PID": String(ProcessInfo.processInfo.processIdentifier)]
        process.environment = ProcessInfo.processInfo.environment.merging(plugin) { $1 }
        // Each stream reaches what `swift package` writes to where it can, else goes through SwiftPM.
        let output = swiftPackageStream(1).map(Destination.direct) ?? .relayed(OutputRelay(to: .standardOutput))
        let error = swiftPackageStream(2).map(Destination.direct) ?? .relayed(OutputRelay(to: .standardError))
        process.standardOutput = output.handle
        process.standardError = error.handle
        try process.run()
        process.waitUntilExit()
        for destination in [output, error] { if case .relayed(let relay) = destination { relay.finish() } }
        exit(process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus)
    }

    /// Where one of the tool's streams goes.
    private enum Destination {
        case direct(FileHandle)
        case relayed(OutputRelay)

        var handle: Any {
            switch self {
            case .direct(let handle): handle
            case .relayed(let relay): relay.pipe
            }
        }
    }

    /// Standard output (1) or standard error (2) of the `swift package` process that runs this
    /// plugin, opened again, when it is a terminal, a pipe or a socket (opened again, a regular
    /// file would be written from its start, over what SwiftPM writes); nil where it cannot be
    /// reached.
    private static func swiftPackageStream(_ number: Int32) -> FileHandle? {
        #if os(Linux)
        let path = "/proc/\(getppid())/fd/\(number)"
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR else { return nil }
        let descriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC)
        return descriptor < 0 ? nil : FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        #else
        return nil
        #endif
    }
}

/// One of the tool's streams passed on through the plugin's own, as it arrives, with a newline
/// after a last line that has none (SwiftPM would drop it).
private final class OutputRelay: @unchecked Sendable {
    let pipe = Pipe()
    private let target: FileHandle
    private let lock = NSLock()
    private var last: UInt8?

    init(to target: FileHandle) {
        self.target = target
        pipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let data = handle.availableData
            guard !data.isEmpty else { return }
            pass(data)
        }
    }

    private func pass(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        target.write(data)
        last = data.last
    }

    /// Passes on what is left once the tool has exited.
    func finish() {
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        if !rest.isEmpty { pass(rest) }
        lock.lock()
        defer { lock.unlock() }
        if let last, last != UInt8(ascii: "\n") { target.write(Data("\n".utf8)) }
    }
}
