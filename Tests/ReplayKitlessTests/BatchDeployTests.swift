import Foundation
import Testing
import Yams

/// Quick consistency checks of the cluster files with the CLI; scripts/interop.sh runs them for real
/// (a one-node Slurm cluster, the Kubernetes API schemas and the Indexed Job's command as its pods run it).
@Suite struct BatchDeployTests {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func kubernetesIndexedJobRunsOneShardPerCompletion() throws {
        let text = try String(contentsOf: root.appendingPathComponent("deploy/kubernetes/indexed-job.yaml"), encoding: .utf8)
        let documents = try Yams.load_all(yaml: text).compactMap { $0 as? [String: Any] }
        let job = try #require(documents.first { $0["kind"] as? String == "Job" })
        let claim = try #require(documents.first { $0["kind"] as? String == "PersistentVolumeClaim" })
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        #expect(spec["parallelism"] as? Int == completions)

        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        let command = try #require(container["command"] as? [String])
        #expect(Array(command.prefix(2)) == ["fxreplay", "batch"])
        func value(after option: String) -> String? {
            command.firstIndex(of: option).flatMap { command.indices.contains($0 + 1) ? command[$0 + 1] : nil }
        }
        #expect(value(after: "--shard-count") == String(completions))
        #expect(value(after: "--manifest") == "/data/manifest.csv")
        #expect(value(after: "--out") == "/data/out")
        // Manifest and outputs are on the shared claim, mounted at /data.
        let mount = try #require((container["volumeMounts"] as? [[String: Any]])?.first)
        #expect(mount["mountPath"] as? String == "/data")
        let volume = try #require((pod["volumes"] as? [[String: Any]])?.first { $0["name"] as? String == mount["name"] as? String })
        let claimName = (volume["persistentVolumeClaim"] as? [String: Any])?["claimName"] as? String
        #expect(claimName == (claim["metadata"] as? [String: Any])?["name"] as? String)
        #expect(((claim["spec"] as? [String: Any])?["accessModes"] as? [String]) == ["ReadWriteMany"])
    }

    @Test func slurmScriptIsValidBashAndUsesAnArray() throws {
        let script = root.appendingPathComponent("deploy/slurm/array.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-n", script]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let text = try String(contentsOfFile: script, encoding: .utf8)
        #expect(text.contains("#SBATCH --array="))
        #expect(text.contains("batch --manifest"))
    }

    /// The image is Debian 12 with the .deb that scripts/package.sh builds, run as a user; scripts/package-check.sh
    /// installs that .deb the same way in a fresh Debian 12 root and renders there.
    @Test func dockerfileInstallsTheDebOnDebian12AsAUser() throws {
        let text = try String(contentsOf: root.appendingPathComponent("Dockerfile"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("FROM ") } == ["FROM debian:12-slim"])
        #expect(lines.contains("COPY dist/fxreplay_*_amd64.deb /tmp/"))
        #expect(text.contains("apt-get install -y --no-install-recommends /tmp/fxreplay_*_amd64.deb"))
        let user = try #require(lines.last { $0.hasPrefix("USER ") })
        #expect(user != "USER root" && user != "USER 0")
        let ignored = try String(contentsOf: root.appendingPathComponent(".dockerignore"), encoding: .utf8)
        #expect(ignored.contains("!dist/fxreplay_*_amd64.deb"))
    }

    /// The README, the Dockerfile and the cluster examples name the image `docker build` makes, no placeholder registry.
    @Test func deployFilesNameTheBuiltImage() throws {
        for file in ["README.md", "Dockerfile", "deploy/kubernetes/indexed-job.yaml", "deploy/slurm/array.sh"] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("registry.example"), "\(file) names a placeholder registry")
        }
        let job = try String(contentsOf: root.appendingPathComponent("deploy/kubernetes/indexed-job.yaml"), encoding: .utf8)
        #expect(job.contains("image: fxreplay:0.1.0"))
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("scripts/package.sh deb && docker build -t fxreplay:0.1.0 -t fxreplay ."))
    }
}
