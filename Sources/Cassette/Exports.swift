// `import Cassette` is all a user writes: the cassette data types and codecs come with it.
@_exported import CassetteFormats
