package org.tfd;

/**
 * A layer to append to a Sequential model with {@link Model#add}; made by
 * the factories of {@link Layers}. Only a description: adding it creates
 * the layer (and its weights) inside the model.
 */
public final class Layer {
  /** Appends the layer to the native model. */
  @FunctionalInterface
  interface Adder {
    void addTo(long model);
  }

  private final String description;
  private final Adder adder;

  Layer(String description, Adder adder) {
    this.description = description;
    this.adder = adder;
  }

  void addTo(long model) {
    adder.addTo(model);
  }

  @Override
  public String toString() {
    return description;
  }
}
