/**
 * tfd's Java binding: train, checkpoint, export and serve models from Java
 * through libtfd's C API.
 *
 * <ul>
 *   <li>{@link org.tfd.Tensor}: dense tensors from and to Java arrays and
 *       java.nio buffers.
 *   <li>{@link org.tfd.Strategy}, {@link org.tfd.Dataset}, {@link
 *       org.tfd.Model} with {@link org.tfd.Layers}: Keras-style training
 *       under tf.distribute strategies.
 *   <li>{@link org.tfd.SavedModelBundle} and {@link org.tfd.Session.Runner}:
 *       SavedModel inference as TensorFlow Java 1.x.
 *   <li>{@link org.tfd.TfdException} and one subclass per family of status
 *       codes, for every error.
 * </ul>
 *
 * <p>Every class that owns native memory is AutoCloseable; a Cleaner frees
 * what is not closed once it is unreachable. The classes load
 * libtfd_jni.so from java.library.path (or the file named by the system
 * property {@code org.tfd.jni.library}), which needs libtfd.so.
 */
package org.tfd;
