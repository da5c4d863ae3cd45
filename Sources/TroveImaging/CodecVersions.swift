import CTroveImaging

/// The versions of the image libraries the codecs run on.
public enum CodecVersions {
    /// libjpeg-turbo's version, from the headers trove was built with (the library has no
    /// run-time call for it).
    public static var jpeg: String { String(cString: ctrove_jpeg_version()) }
    /// libpng's run-time version (`png_get_libpng_ver`).
    public static var png: String { String(cString: ctrove_png_version()) }
}
