import CKernels

/// How a surface is coloured, in the frame's Y'CbCr: the colour at full light and black, lit by
/// `Lighting` (Lambert) or flat. Shading scales R'G'B', and Y'CbCr is affine in R'G'B', so a
/// shaded colour is `black + k·(color − black)`.
struct SurfaceMaterial {
    var color: SIMD3<Float>
    var black: SIMD3<Float>
    var shaded: Bool

    init(_ rgba: RGBAColor, colorSpace: ColorSpace, shaded: Bool) {
        color = Self.yuv(colorSpace, Double(rgba.red), Double(rgba.green), Double(rgba.blue))
        black = Self.yuv(colorSpace, 0, 0, 0)
        self.shaded = shaded
    }

    /// The colour where the surface faces `normal` (any length), in the frame's Y'CbCr.
    @inline(__always) func lit(by lighting: Lighting, normal: SIMD3<Float>) -> SIMD3<Float> {
        guard shaded else { return color }
        return black + lighting.intensity(normal: normal) * (color - black)
    }

    private static func yuv(_ space: ColorSpace, _ r: Double, _ g: Double, _ b: Double) -> SIMD3<Float> {
        let c = space.yuvUnrounded(red: r, green: g, blue: b)
        return SIMD3(Float(c.y), Float(c.cb), Float(c.cr))
    }
}

/// A fixed light in camera space plus ambient light: intensity `ambient + (1 − ambient)·max(0, n·l)`.
struct Lighting {
    let ambient: Double
    /// Unit vector towards the light, camera space: up, left and from behind the viewer.
    static let direction = SIMD3<Double>(-0.35, 0.55, 0.75).unitOrZero
    /// The same in single precision, converted once rather than per pixel.
    private let ambientLight: Float, diffuseLight: Float, towardsLight: SIMD3<Float>

    init(ambient: Double) {
        self.ambient = ambient
        ambientLight = Float(ambient)
        diffuseLight = Float(1 - ambient)
        towardsLight = SIMD3<Float>(Self.direction)
    }

    /// The intensity where the surface faces `normal` (any length), in single precision for per-pixel shading.
    @inline(__always) func intensity(normal: SIMD3<Float>) -> Float {
        let squared = (normal * normal).sum()
        guard squared > 0 else { return ambientLight }
        let cosine = (normal * towardsLight).sum() / squared.squareRoot()
        return ambientLight + diffuseLight * max(0, cosine)
    }

    /// The same for the C rasterizer (CKernels/raster.c), which computes it in the same order; the
    /// view ray is the camera's, set by `MeshRasterizer.add`.
    var kernelLighting: ck_lighting {
        ck_lighting(ambient: ambientLight, diffuse: diffuseLight, towards: (towardsLight.x, towardsLight.y, towardsLight.z, 0),
                    ray_x: (0, 0, 0, 0), ray_y: (0, 0, 0, 0), ray_origin: (0, 0, 0, 0))
    }
}

extension Camera {
    /// The near plane the rasterizer clips at: the pose's zNear, kept away from 0 so that
    /// projected coordinates stay finite whatever the pose data says.
    var clippingNear: Double {
        let minimum = 1e-4
        return pose.zNear.isFinite && pose.zNear > minimum ? pose.zNear : minimum
    }
}
