"""The seven reference networks of MXNet's test_subgraph_op.py, with input shapes, as builders."""
import mxlab as mx


def net1():
    data1, data2 = mx.sym.var('data1'), mx.sym.var('data2')
    conv1 = mx.sym.Convolution(data=data1, weight=data2, no_bias=True, kernel=(2, 2), num_filter=1)
    conv2 = mx.sym.Convolution(data=data2, no_bias=True, kernel=(1, 1), num_filter=1)
    return mx.sym.Group([conv1, conv2]), {'data1': (3, 3, 10, 10), 'data2': (1, 3, 2, 2)}


def net2():
    data = mx.sym.var('data')
    e = mx.sym.exp(data)
    return mx.sym.cos(e) + mx.sym.sin(e), {'data': (2, 3)}


def net3():
    ret, shapes = net2()
    ret = mx.sym.BatchNorm(ret)
    return mx.sym.BatchNorm(ret), {'data': (2, 3)}


def net4():
    data1 = mx.sym.exp(mx.sym.var('data'))
    return mx.sym.Group([data1, data1, data1]), {'data': (2, 3)}


def net5():
    data = mx.sym.var('data')
    return data + data, {'data': (2, 3)}


def net6():
    data1, data2 = mx.sym.var('data1'), mx.sym.var('data2')
    ret = mx.sym.Convolution(data=data1, weight=mx.sym.sin(data2), no_bias=True, kernel=(2, 2),
                             num_filter=1)
    return ret, {'data1': (3, 3, 10, 10), 'data2': (1, 3, 2, 2)}


def net7():
    data = mx.sym.var('data')
    r1 = mx.sym.sin(data)
    r2 = r1
    for _ in range(6):
        r2 = mx.sym.cos(r2)
    return r1 + r2, {'data': (2, 3)}


PLUS = 'elemwise_add'
# (builder, op_names, expected subgraphs as sorted op names per subgraph in id order)
CASES = [
    (net1, ['Convolution'], [['Convolution'], ['Convolution']]),
    (net2, ['exp', 'sin', PLUS], [['exp', 'sin'], [PLUS]]),
    (net2, ['exp', 'cos', PLUS], [['cos', 'exp'], [PLUS]]),
    (net3, ['exp', 'sin', PLUS], [['exp', 'sin'], [PLUS]]),
    (net3, ['exp', 'sin', PLUS, 'BatchNorm'], [['exp', 'sin'],
                                                ['BatchNorm', 'BatchNorm', PLUS]]),
    (net3, ['exp', 'BatchNorm'], [['exp'], ['BatchNorm', 'BatchNorm']]),
    (net3, ['BatchNorm'], [['BatchNorm', 'BatchNorm']]),
    (net4, ['exp'], [['exp']]),
    (net5, [PLUS], [[PLUS]]),
    (net6, [], []),
    (net6, ['sin'], [['sin']]),
    (net6, ['Convolution'], [['Convolution']]),
    (net6, ['sin', 'Convolution'], [['Convolution', 'sin']]),
    (net7, ['sin', PLUS], [['sin'], [PLUS]]),
]
