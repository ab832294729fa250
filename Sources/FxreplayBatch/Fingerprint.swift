import Foundation
import ReplayKitless

/// What a batch output was made from, kept next to it as `.NAME.EXT.fxreplay.json` and written
/// only after the output is in place. A later run skips the recording when the key still
/// matches and the output is the file the fingerprint describes.
package struct OutputFingerprint: Codable, Sendable, Equatable {
    /// SHA-256 (hex) over the fxreplay version, the render arguments, and the size, modification
    /// time and first and last 64 KiB of every local file among them.
    package var key: String
    package var version: String
    package var arguments: [String]
    package var outputBytes: Int64
    /// Nanoseconds since 1970.
    package var outputModified: Int64

    /// Bytes read from each end of a file: enough to see a rewritten header or index, cheap on
    /// network volumes.
    static let sampleBytes = 64 * 1024

    /// The key for a render with `arguments` whose local files are `files`.
    package static func key(version: String, arguments: [String], files: [String]) -> String {
        var hash = SHA256()
        func field(_ text: String) { hash.update(Array(text.utf8) + [0]) }
        field("fxreplay batch fingerprint 1")
        field(version)
        field("\(arguments.count)")
        arguments.forEach(field)
        for file in files {
            field(file)
            guard !PathNames.isURL(file), let info = FileStatus(FilePath(file)) else { field("missing"); continue }
            field("\(info.size) \(info.modified)")
            field(sample(file, size: info.size))
        }
        return hash.hexDigest()
    }

    /// SHA-256 of the first and last ``sampleBytes`` of a file.
    private static func sample(_ path: String, size: Int64) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "unreadable" }
        defer { try? handle.close() }
        var hash = SHA256()
        hash.update(Array((try? handle.read(upToCount: sampleBytes)) ?? Data()))
        if size > Int64(sampleBytes) {
            try? handle.seek(toOffset: UInt64(max(Int64(sampleBytes), size - Int64(sampleBytes))))
            hash.update(Array((try? handle.read(upToCount: sampleBytes)) ?? Data()))
        }
        return hash.hexDigest()
    }

    /// `DIR/.NAME.EXT.fxreplay.json` for output `DIR/NAME.EXT`.
    package static func path(forOutput output: String) -> String {
        PathNames.directory(of: output) + "/." + (output.split(separator: "/").last.map(String.init) ?? output) + ".fxreplay.json"
    }

    /// The fingerprint recorded for `output`, if there is a readable one.
    package static func load(forOutput output: String) -> OutputFingerprint? {
        guard let data = FileManager.default.contents(atPath: path(forOutput: output)) else { return nil }
        return try? JSONDecoder().decode(OutputFingerprint.self, from: data)
    }

    /// A fingerprint for `output` as it is now on disk.
    package init?(key: String, version: String, arguments: [String], output: String) {
        guard let info = FileStatus(FilePath(output)) else { return nil }
        self.key = key
        self.version = version
        self.arguments = arguments
        outputBytes = info.size
        outputModified = info.modified
    }

    /// Whether `output` is still the file this fingerprint was written for, made with `key`.
    package func matches(key: String, output: String) -> Bool {
        self.key == key && describes(output)
    }

    /// Whether `output` is still the file this fingerprint was written for (its size and time):
    /// a batch made it, whatever it was made from.
    package func describes(_ output: String) -> Bool {
        guard let info = FileStatus(FilePath(output)) else { return false }
        return info.size == outputBytes && info.modified == outputModified
    }

    /// Writes the fingerprint next to `output`, atomically.
    package func write(forOutput output: String) throws(ReplayError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw .processing("cannot encode the fingerprint of \(output): \(error)") }
        try AtomicOutput.write(data, to: FilePath(Self.path(forOutput: output)))
    }

    /// Removes the fingerprint of `output`.
    package static func remove(forOutput output: String) {
        unlink(path(forOutput: output))
    }

    /// Before `output` is re-rendered: a fingerprint that still describes it keeps vouching that
    /// a batch made it, with an empty key that no render matches; any other is removed.
    package static func invalidate(forOutput output: String) {
        guard var old = load(forOutput: output), old.describes(output) else { return remove(forOutput: output) }
        guard !old.key.isEmpty else { return }
        old.key = ""
        do { try old.write(forOutput: output) } catch { remove(forOutput: output) }
    }
}

/// SHA-256 (FIPS 180-4), for fingerprints; swift-crypto is not a dependency.
package struct SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    private var state: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    /// Bytes of an unfinished 64-byte block, kept until the next update fills it.
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    package init() { block.reserveCapacity(64) }

    /// Whole blocks are compressed straight from `bytes`; only a block split between updates is
    /// copied. (Appending byte by byte made hashing most of a batch's planning time: 1.9 ms of
    /// CPU per recording, for its 128 KiB of samples, before the first render could start.)
    package mutating func update(_ bytes: [UInt8]) {
        length &+= UInt64(bytes.count)
        bytes.withUnsafeBufferPointer { input in
            var rest = input[...]
            if !block.isEmpty {
                let taken = rest.prefix(64 - block.count)
                block.append(contentsOf: taken)
                rest = rest.dropFirst(taken.count)
                guard block.count == 64 else { return }
                let full = block
                full.withUnsafeBufferPointer { compress($0.baseAddress!) }
                block.removeAll(keepingCapacity: true)
            }
            while rest.count >= 64 {
                compress(input.baseAddress! + rest.startIndex)
                rest = rest.dropFirst(64)
            }
            block.append(contentsOf: rest)
        }
    }

    /// The digest; the hash must not be updated afterwards.
    package mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail = block + [0x80]
        tail += [UInt8](repeating: 0, count: (tail.count > 56 ? 120 : 56) - tail.count)
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 64) { compress(all.baseAddress! + start) }
        }
        block.removeAll()
        return state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    package mutating func hexDigest() -> String {
        finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The 64-byte block at `chunk` into the state (pointers: a slice's subscript checks bounds
    /// even in release builds).
    private mutating func compress(_ chunk: UnsafePointer<UInt8>) {
        func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                let at = 4 * i
                w[i] = UInt32(chunk[at]) << 24 | UInt32(chunk[at + 1]) << 16 | UInt32(chunk[at + 2]) << 8 | UInt32(chunk[at + 3])
            }
            for i in 16..<64 {
                let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let t1 = h &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                    let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state.withUnsafeMutableBufferPointer { s in
                (s[0], s[1], s[2], s[3]) = (s[0] &+ a, s[1] &+ b, s[2] &+ c, s[3] &+ d)
                (s[4], s[5], s[6], s[7]) = (s[4] &+ e, s[5] &+ f, s[6] &+ g, s[7] &+ h)
            }
        }
    }
}
