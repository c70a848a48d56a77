#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
// `_forEachField`, the standard library's reading of a type's field records. The one file that
// imports the standard library's SPI (ModuleArrowsTests allows it here alone).
@_spi(Reflection) import Swift

/// Where a class keeps a stored field, read from the type's own field records (what `Mirror` reads
/// too, without an instance and without walking every field of one). Linux only: it finds
/// FoundationNetworking's private fields, which Apple's Foundation does not have.
enum FieldRecords {
    /// The byte offset of the stored field `name` in every instance of `owner` (a subclass keeps
    /// its superclass's fields where it put them), when the records name such a field and say it
    /// is a `type`; nil otherwise — a FoundationNetworking that changed.
    static func offset(of name: String, in owner: AnyClass, type: Any.Type) -> Int? {
        guard let field = field(name, in: owner), field.type == type else { return nil }
        return field.offset
    }

    /// The stored field `name` of `owner` (not of its superclasses): its byte offset in every
    /// instance and its type; nil when the records name no such field.
    static func field(_ name: String, in owner: AnyClass) -> (offset: Int, type: Any.Type)? {
        var found: (offset: Int, type: Any.Type)?
        // `.classType` (1 << 0): the standard library declares it a `static var`, which Swift 6 does
        // not let this read. Were the bit to mean something else, no field would be given: nil.
        let classType = _EachFieldOptions(rawValue: 1 << 0)
        _forEachField(of: owner, options: classType) { fieldName, offset, fieldType, _ in
            if strcmp(fieldName, name) == 0 { found = (offset, fieldType) }
            return found == nil
        }
        return found
    }
}
#endif
