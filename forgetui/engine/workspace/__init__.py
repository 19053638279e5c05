"""The workspace's files as the engine reads and writes them: one walk, link-safe writes, what a
checkout says about itself."""
