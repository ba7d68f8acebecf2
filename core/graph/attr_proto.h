// Conversions between tfd's AttrValue (core/framework/attr_value.h) and
// TensorFlow's AttrValue proto, the form attrs take in a NodeDef.
//
// To proto, the variant's alternative says the proto field. From proto, the
// OpDef's declared attr type decides, because an empty list in a proto
// does not say what it is a list of. Attr names starting with "_" are
// TensorFlow's annotations (`_output_shapes`, `_class`) and are dropped;
// an attr the OpDef does not declare is an error naming it, as TensorFlow's
// "NodeDef mentions attr 'x' not in Op" is.
#ifndef TFD_CORE_GRAPH_ATTR_PROTO_H_
#define TFD_CORE_GRAPH_ATTR_PROTO_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "core/framework/attr_value.h"
#include "core/framework/op_def.h"
#include "core/protobuf/attr_value.pb.h"

namespace tfd {
namespace graph {

// INVALID_ARGUMENT for a tensor value that cannot be serialized.
absl::StatusOr<tensorflow::AttrValue> AttrToProto(const AttrValue& value);

// Converts `proto` to the type `type` ("int", "list(type)", "shape", ...).
// INVALID_ARGUMENT naming the attr when the proto holds another kind of
// value; UNIMPLEMENTED for kinds tfd attrs do not have (func, placeholder).
absl::StatusOr<AttrValue> AttrFromProto(const std::string& attr_name,
                                        const tensorflow::AttrValue& proto,
                                        const std::string& type);

// The attrs of a NodeDef as an AttrMap for `op`; see the file comment.
absl::StatusOr<AttrMap> AttrMapFromProto(const OpDef& op,
                                         const std::map<std::string, tensorflow::AttrValue>& attrs);

// True when `value` equals the op's default for `attr_name` (such attrs
// are left out of a NodeDef, as TensorFlow strips defaults on export).
bool IsDefaultAttr(const OpDef& op, const std::string& attr_name, const AttrValue& value);

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_ATTR_PROTO_H_
