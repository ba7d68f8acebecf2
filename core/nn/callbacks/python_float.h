// Python's repr() of a float: the shortest decimal that reads back to the
// same double, in Python's layout ("0.5134000182151794", "100.0",
// "1e-05", "1.5e+16", "nan", "-inf"). Keras's CSVLogger writes log values
// this way, and Keras's messages print them so.
#ifndef TFD_CORE_NN_CALLBACKS_PYTHON_FLOAT_H_
#define TFD_CORE_NN_CALLBACKS_PYTHON_FLOAT_H_

#include <string>

namespace tfd {
namespace nn {

std::string PythonFloatRepr(double value);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_PYTHON_FLOAT_H_
