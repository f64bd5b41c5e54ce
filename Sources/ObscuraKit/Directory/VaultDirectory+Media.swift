extension VaultDirectory {
    /// The media pool of this directory.
    var pool: MediaPool { MediaPool(path: mediaPath, steps: store.steps) }
}
