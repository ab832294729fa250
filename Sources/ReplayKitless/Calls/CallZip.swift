import Foundation
import ZIPFoundation

/// An individual-stream archive's ZIP: its manifest and the media files the manifest names,
/// extracted into a private folder and nowhere else.
///
/// Only the manifest and the members it names are extracted, each under a name fxreplay makes
/// (never the member's own path), so no member name can place a file outside the folder. Sizes
/// are checked before anything is written and bytes are counted while extracting, so a member
/// that expands far beyond its stored size (a ZIP bomb) stops the run before the disk fills. A
/// member named by several tracks is extracted once, all members together expand to at most
/// ``expansionLimit(stored:)`` of the whole archive's size, and extracting leaves
/// ``freeSpaceMargin`` free on the private folder's file system.
enum CallZip {
    /// A member may expand to at most this many times its stored size (media barely compresses;
    /// deflate's own limit is about 1032×, which only runs of identical bytes reach) …
    static let expansionRatio: UInt64 = 100
    /// … or to this many bytes, whichever is more (a small manifest may compress well).
    static let expansionFloor: UInt64 = 1 << 20
    /// The most bytes extracted from one archive, all members together: 64 GiB.
    static let totalBytes: UInt64 = 64 << 30
    /// The most members an archive may list.
    static let memberCount = 100_000
    /// Free space extracting must leave on the private folder's file system, so the output and
    /// everything else on the machine still have room: 1 GiB, or a ``freeSpaceFraction``th of a
    /// smaller file system.
    static let freeSpaceMargin: UInt64 = 1 << 30
    static let freeSpaceFraction: UInt64 = 20

    /// Bytes of a manifest read from the ZIP (read into memory to find which JSON member is the manifest).
    static let manifestBytes = InputLimits.callManifestBytes

    /// The extracted archive: the manifest (its name for messages is `ZIP/member`) and, for each of
    /// its streams, the extracted path of each track.
    struct Extracted {
        var manifest: CallManifest
        var manifestName: String
        var paths: [[String]]
    }

    /// Extracts the manifest and the files it names from `zip` into `folder` (which exists and is private).
    /// - Throws: `ReplayError.badInput` naming the ZIP, or the manifest with its entry and field;
    ///   `.processing` when the temporary folder's disk cannot hold the members.
    static func extract(_ zip: String, into folder: String) throws(ReplayError) -> Extracted {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        } catch {
            throw .badInput("\(zip): not a readable ZIP archive (\(error))")
        }
        let archiveSize = UInt64((try? FileManager.default.attributesOfItem(atPath: zip))?[.size] as? Int ?? 0)
        var members: [String: Entry] = [:]
        for entry in archive {
            guard members.count < memberCount else { throw .badInput("\(zip): more than \(memberCount) members; not a call archive") }
            if members.updateValue(entry, forKey: entry.path) != nil, entry.type != .directory {
                throw .badInput("\(zip): holds two members named \"\(entry.path)\"")
            }
        }
        let (manifestMember, manifestBytes) = try findManifest(in: archive, members: members, zip: zip, archiveSize: archiveSize)
        let manifestName = "\(zip)/\(manifestMember)"
        let manifest = try CallManifest(json: manifestBytes, file: manifestName)
        let manifestFolder = manifestMember.split(separator: "/").dropLast().map(String.init)

        // Every member is found and checked before the first byte is written. Tracks that name one
        // member share it: it is extracted once (`unique[i]` for the tracks planned as `i`).
        var planned: [[Int]] = []
        var unique: [(entry: Entry, track: CallManifest.Track)] = []
        var uniqueIndex: [String: Int] = [:]
        var declaredTotal: UInt64 = 0
        let bound = expansionLimit(stored: archiveSize)
        for stream in manifest.streams {
            var tracks: [Int] = []
            for track in stream.tracks {
                let parts = try CallPaths.components(of: track.file, track: track, manifest: manifestName)
                let memberPath = (manifestFolder + parts).joined(separator: "/")
                func refuse(_ why: String) -> ReplayError {
                    .badInput(file: manifestName, line: track.line, field: "\(track.entry), \(track.fileKey)", "\"\(track.file)\" \(why)")
                }
                guard let entry = members[memberPath] else { throw refuse("is missing: the archive has no member \(memberPath)") }
                guard entry.type == .file else { throw refuse("is a \(entry.type == .symlink ? "symbolic link" : "folder") in the archive, not a media file") }
                try checkSize(of: entry, archiveSize: archiveSize, refuse: refuse)
                if let shared = uniqueIndex[memberPath] {
                    tracks.append(shared)
                    continue
                }
                // Each member is at most `totalBytes` (checkSize) and the sum is checked at each step: no overflow.
                declaredTotal += entry.uncompressedSize
                guard declaredTotal <= bound else {
                    throw .badInput("\(zip): member \(memberPath) would bring the extracted files to \(declaredTotal) bytes, more than the \(bound) bytes fxreplay extracts from it (\(expansionRatio) times the archive's \(archiveSize) bytes, at least \(expansionFloor >> 20) MiB, at most \(totalBytes >> 30) GiB; docs/limits.md)")
                }
                uniqueIndex[memberPath] = unique.count
                tracks.append(unique.count)
                unique.append((entry, track))
            }
            planned.append(tracks)
        }
        try checkFreeSpace(in: folder, for: declaredTotal, what: "the call's files")

        var extracted: [String] = []
        for (index, (entry, track)) in unique.enumerated() {
            // Again before each member: the file system is shared, and may have filled meanwhile.
            try checkFreeSpace(in: folder, for: entry.uncompressedSize, what: "\(entry.path) from \(zip)")
            let path = folder + "/" + privateName(for: entry.path, number: index + 1)
            try extract(entry, from: archive, to: path, zip: zip, manifest: manifestName, track: track)
            extracted.append(path)
        }
        return Extracted(manifest: manifest, manifestName: manifestName, paths: planned.map { $0.map { extracted[$0] } })
    }

    /// The manifest: the one JSON member nearest the archive's top that is a manifest (`files`
    /// or `participants`); the only JSON member there is taken as it is, so its mistakes are named.
    private static func findManifest(in archive: Archive, members: [String: Entry], zip: String,
                                     archiveSize: UInt64) throws(ReplayError) -> (String, [UInt8]) {
        let candidates = members.values.filter { entry in
            let name = entry.path.split(separator: "/").last.map(String.init) ?? ""
            return entry.type == .file && entry.path.lowercased().hasSuffix(".json") && !entry.path.hasPrefix("__MACOSX/")
                && !name.hasPrefix("._")
        }
        let depth = { (entry: Entry) in entry.path.filter { $0 == "/" }.count }
        guard let shallowest = candidates.map(depth).min() else {
            throw .badInput("\(zip): no manifest (.json) in the archive; is this an individual-stream archive?")
        }
        let top = candidates.filter { depth($0) == shallowest }.sorted { $0.path < $1.path }
        func read(_ entry: Entry) throws(ReplayError) -> [UInt8] {
            guard entry.uncompressedSize <= UInt64(manifestBytes) else {
                throw .badInput("\(zip)/\(entry.path): the manifest is larger than \(manifestBytes) bytes, the most fxreplay reads")
            }
            try checkSize(of: entry, archiveSize: archiveSize) { why in .badInput("\(zip)/\(entry.path): the manifest \(why)") }
            var bytes: [UInt8] = []
            try consume(entry, from: archive, zip: zip) { (data: Data) throws(ReplayError) in bytes.append(contentsOf: data) }
            return bytes
        }
        if top.count == 1 { return (top[0].path, try read(top[0])) }
        var manifests: [(String, [UInt8])] = []
        for entry in top {
            let bytes = try read(entry)
            if CallManifest.looksLikeManifest(bytes) { manifests.append((entry.path, bytes)) }
        }
        guard manifests.count == 1 else {
            let names = top.map(\.path).joined(separator: ", ")
            throw .badInput("\(zip): \(manifests.isEmpty ? "none" : "more than one") of its JSON members (\(names)) is a call manifest")
        }
        return manifests[0]
    }

    /// Refuses a member whose declared sizes are impossible (more stored bytes than the archive
    /// holds), too large, or a ratio no media file has.
    private static func checkSize(of entry: Entry, archiveSize: UInt64,
                                  refuse: (String) -> ReplayError) throws(ReplayError) {
        let stored = entry.isCompressed ? entry.compressedSize : entry.uncompressedSize
        guard stored <= archiveSize else {
            throw refuse("declares \(stored) stored bytes, more than the whole archive (\(archiveSize) bytes): the archive is damaged")
        }
        guard entry.uncompressedSize <= totalBytes else {
            throw refuse("declares \(entry.uncompressedSize) bytes, more than the \(totalBytes >> 30) GiB fxreplay extracts")
        }
        guard entry.uncompressedSize <= expansionLimit(stored: entry.compressedSize) else {
            throw refuse("would expand from \(entry.compressedSize) to \(entry.uncompressedSize) bytes, more than \(expansionRatio)× its stored size: refused as a ZIP bomb")
        }
    }

    /// The most bytes a member stored in `stored` bytes may expand to.
    static func expansionLimit(stored: UInt64) -> UInt64 {
        let (scaled, overflow) = stored.multipliedReportingOverflow(by: expansionRatio)
        return min(max(overflow ? .max : scaled, expansionFloor), totalBytes)
    }

    /// Exit 4 before extracting `what` (`bytes` bytes) when the temporary folder's file system
    /// has no room for it and ``freeSpaceMargin`` more.
    private static func checkFreeSpace(in folder: String, for bytes: UInt64, what: String) throws(ReplayError) {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return }
        let available = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        let margin = min(freeSpaceMargin, UInt64(info.f_blocks) * UInt64(info.f_frsize) / freeSpaceFraction)
        guard bytes <= available, available - bytes >= margin else {
            throw .processing("\(folder): extracting \(what) takes \(bytes) bytes, but its file system has \(available) free and fxreplay leaves \(margin) free (docs/limits.md; set TMPDIR to a larger one)")
        }
    }

    /// Extracts one member to `path`, counting bytes: it may not grow past its declared size (the
    /// checked one) and its checksum must match.
    private static func extract(_ entry: Entry, from archive: Archive, to path: String, zip: String, manifest: String,
                                track: CallManifest.Track) throws(ReplayError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .processing("\(path): cannot create (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        try consume(entry, from: archive, zip: zip) { (data: Data) throws(ReplayError) in
            var failure: Int32 = 0
            data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { failure = count < 0 ? errno : EIO; return }
                    offset += count
                }
            }
            if failure != 0 {
                throw .processing("\(path): cannot write \(track.file) extracted from \(zip) (\(String(cString: strerror(failure))))")
            }
        }
    }

    /// Feeds `entry`'s bytes to `consumer`, stopping with bad input when they run past the
    /// declared size or their checksum is wrong.
    private static func consume(_ entry: Entry, from archive: Archive, zip: String,
                                _ consumer: (Data) throws(ReplayError) -> Void) throws(ReplayError) {
        let limit = entry.uncompressedSize
        var count: UInt64 = 0
        let checksum: CRC32
        do {
            checksum = try archive.extract(entry, bufferSize: 1 << 18) { data in
                count += UInt64(data.count)
                guard count <= limit else {
                    throw ReplayError.badInput("\(zip): member \(entry.path) expands beyond its declared \(limit) bytes: refused as a ZIP bomb")
                }
                try consumer(data)
            }
        } catch let error as ReplayError {
            throw error
        } catch {
            throw .badInput("\(zip): cannot extract member \(entry.path) (\(error))")
        }
        guard count == limit else { throw .badInput("\(zip): member \(entry.path) holds \(count) bytes, not the \(limit) it declares") }
        guard checksum == entry.checksum else { throw .badInput("\(zip): member \(entry.path) is damaged (its checksum does not match)") }
    }

    /// The name a member is extracted under: a number (members are unique by it) and the
    /// member's own file name with every byte that is not plain ASCII replaced.
    static func privateName(for member: String, number: Int) -> String {
        let base = member.split(separator: "/").last.map(String.init) ?? "member"
        let safe = String(base.unicodeScalars.prefix(80).map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        return "\(number)-\(safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe)"
    }
}
