/// 64-bit FNV-1a of `bytes`: small, and the same on every platform, release and run (unlike Swift's
/// `Hasher`). The library names temporary files with it; `fxreplay batch --shard` assigns a recording
/// to a worker by it (docs/cluster.md), so a program can tell which worker does which recording.
public func fnv1a64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
    }
    return hash
}
