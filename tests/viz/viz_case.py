"""Prints print_summary and plot_network output under mxnet or mxlab (argv[1])."""
import contextlib
import io
import sys

if sys.argv[1] == "mxnet":
    import mxnet as mx
else:
    import mxlab as mx

data = mx.sym.var("data")
net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name="conv1")
net = mx.sym.BatchNorm(net, name="bn1")
net = mx.sym.Activation(net, act_type="relu", name="relu1")
net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
net = mx.sym.FullyConnected(mx.sym.Flatten(net, name="flat"), num_hidden=10, name="fc1")
net = mx.sym.softmax(net, name="sm")
buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    mx.viz.print_summary(net, shape={"data": (2, 3, 8, 8)})
print(buffer.getvalue())
print(mx.viz.plot_network(net, shape={"data": (2, 3, 8, 8)}, dtype={"data": "float32"}).source)
