// `import ReplayKitless` alone names the type of every local file in the public API.
@_exported import struct SystemPackage.FilePath

/// A value that names local files: a `FilePath`, an optional one or a list.
public protocol PathValue: Sendable, Equatable {
    /// The JSON form: the paths' plain strings (``PathCoded``).
    associatedtype Text: Codable, Sendable
    /// The paths `codedPaths` names.
    init(codedPaths: Text)
    /// The paths as plain strings.
    var codedPaths: Text { get }
}

extension FilePath: PathValue {
    /// The path(s) `codedPaths` names.
    public init(codedPaths: String) { self.init(codedPaths) }
    /// The plain string(s).
    public var codedPaths: String { string }
}

extension Optional: PathValue where Wrapped == FilePath {
    /// The path(s) `codedPaths` names.
    public init(codedPaths: String?) { self = codedPaths.map { FilePath($0) } }
    /// The plain string(s).
    public var codedPaths: String? { self?.string }
}

extension Array: PathValue where Element == FilePath {
    /// The path(s) `codedPaths` names.
    public init(codedPaths: [String]) { self = codedPaths.map { FilePath($0) } }
    /// The plain string(s).
    public var codedPaths: [String] { map(\.string) }
}

/// Codes a path property as the plain JSON string(s) it names: `FilePath`'s own `Codable` writes
/// its storage, and the options' and reports' JSON (formats.md) has always held plain strings.
@propertyWrapper
public struct PathCoded<Value: PathValue>: Sendable, Equatable, Codable {
    /// The path(s).
    public var wrappedValue: Value

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    /// Reads the plain string(s).
    public init(from decoder: any Swift.Decoder) throws {
        wrappedValue = Value(codedPaths: try decoder.singleValueContainer().decode(Value.Text.self))
    }

    /// Writes the plain string(s).
    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.codedPaths)
    }
}

// Chosen over the generic methods by a synthesized `Codable`: an absent optional path leaves its key
// out, and a missing key reads as `nil`, as for a `String?`.
extension KeyedEncodingContainer {
    /// Writes an optional path as a plain string, or leaves the key out when it is `nil`.
    public mutating func encode(_ value: PathCoded<FilePath?>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue?.string, forKey: key)
    }
}

extension KeyedDecodingContainer {
    /// Reads an optional path from a plain string; a missing key is `nil`.
    public func decode(_ type: PathCoded<FilePath?>.Type, forKey key: Key) throws -> PathCoded<FilePath?> {
        PathCoded(wrappedValue: try decodeIfPresent(String.self, forKey: key).map { FilePath($0) })
    }
}
