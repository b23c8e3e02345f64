import Foundation

/// Reads the `.swift` files under the paths given on the command line.
///
/// ```swift
/// let files = try SourceFiles.collect(["Sources", "Tests"])
/// let report = Checker().check(files)
/// ```
public enum SourceFiles {
    /// A path that cannot be read.
    public struct Unreadable: Error, CustomStringConvertible {
        /// The path as given.
        public var path: String
        /// Why it cannot be read.
        public var reason: String

        /// `cannot read 'PATH': REASON`.
        public var description: String { "cannot read '\(path)': \(reason)" }
    }

    /// Every `.swift` file under `paths` (files or directories, recursively; directories whose name
    /// starts with a dot, such as `.build`, are skipped), in checking order: by argument, then by path
    /// relative to the argument as plain strings.
    public static func collect(_ paths: [String], asContext: Bool = false) throws(Unreadable) -> [SourceFile] {
        let manager = FileManager.default
        var files: [SourceFile] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Unreadable(path: path, reason: "no such file or directory")
            }
            if !isDirectory.boolValue {
                files.append(
                    SourceFile(
                        path: path, relativePath: (path as NSString).lastPathComponent, text: try read(path),
                        isContext: asContext))
                continue
            }
            var relatives: [String] = []
            guard let enumerator = manager.enumerator(atPath: path) else {
                throw Unreadable(path: path, reason: "the directory cannot be listed")
            }
            while let relative = enumerator.nextObject() as? String {
                let last = (relative as NSString).lastPathComponent
                if last.hasPrefix(".") {
                    if (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory {
                        enumerator.skipDescendants()
                    }
                    continue
                }
                if relative.hasSuffix(".swift") {
                    var isFolder: ObjCBool = false
                    let full = join(path, relative)
                    if manager.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
                        relatives.append(relative)
                    }
                }
            }
            for relative in relatives.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                let full = join(path, relative)
                files.append(SourceFile(path: full, relativePath: relative, text: try read(full), isContext: asContext))
            }
        }
        return unique(files)
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    private static func read(_ path: String) throws(Unreadable) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(path: path, reason: "the file cannot be read")
        }
        return decode(data)
    }

    /// The text of a file; each byte that is not part of valid UTF-8 reads as one U+001A, so that
    /// columns still count the file's bytes (a U+FFFD would take three).
    static func decode(_ data: Data) -> String {
        if let text = String(validating: data, as: UTF8.self) {
            return text
        }
        let bytes = [UInt8](data)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                output.append(0x1A)
                index += 1
            } else {
                output += bytes[index..<index + length]
                index += length
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The length of the well-formed UTF-8 sequence starting at `index`, or 0.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// `files` without the ones already met under another spelling of their path (`Sources` and
    /// `Sources/App.swift`, a symbolic link): the first spelling is kept.
    static func unique(_ files: [SourceFile]) -> [SourceFile] {
        var seen: Set<String> = []
        return files.filter { file in
            let real = URL(fileURLWithPath: file.path).standardizedFileURL.resolvingSymlinksInPath().path
            return seen.insert(real).inserted
        }
    }
}
