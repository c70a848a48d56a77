/// `import CassetteTesting` is all a test needs: the traits, and the runtime they drive.
@_exported import Cassette
