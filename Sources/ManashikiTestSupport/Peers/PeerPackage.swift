/// Where a peer comes from: the package `scripts/test` installs for it.
package enum PeerPackage: Sendable, Hashable, CustomStringConvertible {
    /// A Debian package (`apt-get install NAME`), in `scripts/test`'s `debian_packages` list.
    case debian(String)
    /// A PyPI package (`python3 -m pip install NAME`), in `scripts/test`'s `pypi_packages` list.
    case pypi(String)

    /// The package's name in its registry.
    package var name: String {
        switch self {
        case .debian(let name), .pypi(let name): name
        }
    }

    /// "the Debian package nginx-light", "the PyPI package oras".
    package var description: String {
        switch self {
        case .debian(let name): "the Debian package \(name)"
        case .pypi(let name): "the PyPI package \(name)"
        }
    }
}
