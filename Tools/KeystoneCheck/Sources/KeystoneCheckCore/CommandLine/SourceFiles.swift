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
        return files
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    private static func read(_ path: String) throws(Unreadable) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(path: path, reason: "the file cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
